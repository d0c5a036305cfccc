#!/usr/bin/env bash
# Runs the render path's benchmarks (render/bench_test.go) against the
# reference tools in the same run: kustomize build and helm template, built
# at the versions go.mod pins, each iteration of podlint's render followed
# by the tool's on the same root (cpu-ms/op, ref-cpu-ms/op, ratio/op; see
# docs/performance.md, "Rendering at the speed of kustomize").
#
#   scripts/render-bench.sh                       # builds both into $REF
#   KUSTOMIZE=/path/kustomize HELM=/path/helm scripts/render-bench.sh
#   env: REF=/tmp/podlint-reftools  BENCHTIME=3x  BENCH=Render
#
# The tools are built outside the repository (GOBIN=$REF, never go.mod):
# kustomize/v5 v5.8.2 is the release of sigs.k8s.io/kustomize/api v0.21.2.
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${REF:-/tmp/podlint-reftools}
api=$(go list -m -f '{{.Version}}' sigs.k8s.io/kustomize/api)
helmv=$(go list -m -f '{{.Version}}' helm.sh/helm/v3)
if [ -z "${KUSTOMIZE:-}" ]; then
	case $api in
	v0.21.2) kv=v5.8.2 ;;
	*) echo "render-bench.sh: which kustomize/v5 release has kustomize/api $api? Set KUSTOMIZE=path" >&2; exit 2 ;;
	esac
	GOFLAGS= GOBIN=$ref CGO_ENABLED=0 go install -trimpath "sigs.k8s.io/kustomize/kustomize/v5@$kv"
	KUSTOMIZE=$ref/kustomize
fi
if [ -z "${HELM:-}" ]; then
	GOFLAGS= GOBIN=$ref CGO_ENABLED=0 go install -trimpath "helm.sh/helm/v3/cmd/helm@$helmv"
	HELM=$ref/helm
fi
echo "kustomize: $("$KUSTOMIZE" version)  helm: $("$HELM" version --short)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
PODLINT_BENCH_KUSTOMIZE=$KUSTOMIZE PODLINT_BENCH_HELM=$HELM \
	go test -run=NONE -bench="${BENCH:-Render}" -benchtime="${BENCHTIME:-3x}" ./render
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
