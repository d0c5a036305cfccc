# podlint's container image, built by goreleaser (.goreleaser.yaml,
# dockers_v2) from the release binaries: goreleaser puts each platform's
# static binaries at $TARGETPLATFORM/podlint and $TARGETPLATFORM/podlint-render
# in the build context. It is not meant for a plain `docker build .` of the
# source tree.
#
#   docker run --rm -v "$PWD:/src" -w /src ghcr.io/podlint/podlint check .
#
# scratch: nothing but podlint and the podlint-render it starts beside
# itself for charts and kustomizations (they need no libc, certificates or
# shell: they read files and write reports). The numeric user is the
# "nonroot" of the distroless images; mounted manifests must be readable by
# it.
FROM scratch
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/podlint /usr/local/bin/podlint
COPY $TARGETPLATFORM/podlint-render /usr/local/bin/podlint-render
ENV PATH=/usr/local/bin
USER 65532:65532
ENTRYPOINT ["podlint"]
