# podlint's container image, built by goreleaser (.goreleaser.yaml,
# dockers_v2) from the release binaries: goreleaser puts each platform's
# static binaries at $TARGETPLATFORM/podlint, $TARGETPLATFORM/podlint-render
# and $TARGETPLATFORM/podlint-observe in the build context. It is not meant for a plain `docker build .` of the
# source tree.
#
#   docker run --rm -v "$PWD:/src" -w /src ghcr.io/podlint/podlint check .
#
# scratch: nothing but podlint, the podlint-render it starts beside itself
# for charts and kustomizations and the podlint-observe it starts for podlint
# observe of a live cluster (they need no libc, certificates or shell: they
# read files and write reports; a cluster's CA comes from its kubeconfig). The numeric user is the
# "nonroot" of the distroless images; mounted manifests must be readable by
# it.
FROM scratch
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/podlint /usr/local/bin/podlint
COPY $TARGETPLATFORM/podlint-render /usr/local/bin/podlint-render
COPY $TARGETPLATFORM/podlint-observe /usr/local/bin/podlint-observe
ENV PATH=/usr/local/bin
USER 65532:65532
ENTRYPOINT ["podlint"]
