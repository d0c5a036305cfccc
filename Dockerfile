# podlint's container image, built by goreleaser (.goreleaser.yaml,
# dockers_v2) from the release binaries: goreleaser puts each platform's
# static binary at $TARGETPLATFORM/podlint in the build context. It is not
# meant for a plain `docker build .` of the source tree.
#
#   docker run --rm -v "$PWD:/src" -w /src ghcr.io/podlint/podlint check .
#
# scratch: nothing but podlint (which needs no libc, certificates or shell:
# it reads files and writes reports). The numeric user is the "nonroot" of
# the distroless images; mounted manifests must be readable by it.
FROM scratch
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/podlint /usr/local/bin/podlint
ENV PATH=/usr/local/bin
USER 65532:65532
ENTRYPOINT ["podlint"]
