#!/usr/bin/env bash
# Measures podlint and writes the results into docs/performance.md (see its
# "How it is measured"). One run produces:
#   1. the benchmark suite in ./bench (floors, pipeline, one large file,
#      standard input, stages; `go test -bench`, COUNT runs each), summarized;
#   2. whole-process measurements of the real binary (bench/perfdoc):
#      paired ratios against the node-parse and typed-decode floor programs
#      (bench/floor) on the 10 000-document corpus, podlint at 1×, 2×, 4× and
#      8× the corpus (wall, CPU, peak RSS), the same documents as one large
#      file and on standard input, small-file latency with the most
#      expensive package initializations, and a CPU profile split by stage.
# The results replace the LABEL section of docs/performance.md ("after" by
# default; LABEL=before records the baseline) and the before/after
# comparison is regenerated from both sections.
#
#   scripts/bench.sh
#   env: LABEL=after|before  CORPUS=testdata/corpus  COUNT=3 (suite runs)
#        PAIRS=5 (pairs per floor)  RUNS=3 (runs per table row)
#        SCALES=1,2,4,8  LARGE_MB=60 (size of the large file)
#        SMALL_RUNS=40  FORMAT=json (podlint's report format)
#        SUITE=0 (skip the go test suite)  DOC=docs/performance.md (empty: print)
#
#   STARTUP=1 KUBE_SCORE=/tmp/kube-score/kube-score scripts/bench.sh
#     measures only the start-up instead (issue 37 item 2): podlint and
#     kube-score on the same small file, STARTUP_PAIRS=200 pairs run back
#     to back, CPU time summed, and GODEBUG=inittrace=1's package inits of
#     both, into the `startup LABEL` section and the start-up comparison.
#     Build kube-score outside the repository first:
#       GOBIN=/tmp/kube-score CGO_ENABLED=0 go install -trimpath -ldflags="-s -w" github.com/zegl/kube-score/cmd/kube-score@v1.20.0
#     PODLINT_BIN=path measures that podlint (with its podlint-render beside
#     it, if any) instead of building this checkout's, and COMMIT=abc names
#     its commit: how the "before" of a change is measured.
#
#   FORMATS=1 [BASE_BIN=/tmp/before/podlint] scripts/bench.sh
#     measures only text against json and sarif (issue 37 item 1): CPU
#     time and peak RSS of each format on the corpus at 1× and 4×, PAIRS=5
#     rounds, each format's CPU read against text's of the same round, into
#     the `formats` section; BASE_BIN runs a build of the code before the
#     change in the same rounds.
#
# Needs Go and GNU time (/usr/bin/time; installed with apt-get when missing
# and possible). About 5 minutes on a quiet 2-core machine with the defaults
# (12 when the machine is shared).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=$(cd "${CORPUS:-testdata/corpus}" && pwd)
count=${COUNT:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! [ -x /usr/bin/time ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "== installing GNU time"
	apt-get install -y -qq time >/dev/null || (apt-get update -qq && apt-get install -y -qq time >/dev/null) || true
fi
if ! [ -x /usr/bin/time ]; then
	echo "bench.sh: /usr/bin/time (GNU time) is missing: apt-get install time" >&2
	exit 1
fi

echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
echo "== corpus: workload documents of $corpus"
# Built as the release is (.goreleaser.yaml): without cgo and without
# kustomize's Go plugin loader. A cgo build that links the plugin package
# makes the linker keep every exported method and symbol: 75 MB instead of
# 42, and 21 MiB more of the executable resident in every run.
# podlint-render and podlint-observe, which podlint starts for charts and for
# a live cluster, are built beside it. The start-up is measured with the
# release's -ldflags "-s -w" as well (a smaller executable to map;
# kube-score is built the same way).
ldflags=
[ "${STARTUP:-0}" != 1 ] || ldflags="-s -w"
CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -tags kustomize_disable_go_plugin_support,urfave_cli_no_docs -o "$work/" ./cmd/podlint ./cmd/podlint-render ./cmd/podlint-observe
go build -tags benchtools -o "$work/perfdoc" ./bench/perfdoc

if [ "${STARTUP:-0}" = 1 ]; then
	if ! [ -x "${KUBE_SCORE:-}" ]; then
		echo "bench.sh: STARTUP=1 needs KUBE_SCORE=path of a kube-score executable (see the header of this script)" >&2
		exit 1
	fi
	echo "== start-up against $("$KUBE_SCORE" version 2>/dev/null | head -n 1)"
	"$work/perfdoc" -startup -podlint "${PODLINT_BIN:-$work/podlint}" -kube-score "$KUBE_SCORE" -commit "${COMMIT:-}" \
		-label "${LABEL:-after}" -doc "${DOC-docs/performance.md}" -startup-pairs "${STARTUP_PAIRS:-200}" -init-runs "${INIT_RUNS:-20}"
	echo "== done, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
	exit 0
fi
if [ "${FORMATS:-0}" = 1 ]; then
	"$work/perfdoc" -formats -podlint "$work/podlint" -base "${BASE_BIN:-}" -work "$work" -pairs "${PAIRS:-5}" \
		-commit "${COMMIT:-}" -doc "${DOC-docs/performance.md}"
	echo "== done, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
	exit 0
fi
CGO_ENABLED=0 go build -tags benchtools -o "$work/floor" ./bench/floor

suite=()
if [ "${SUITE:-1}" != 0 ]; then
	echo "== benchmark suite (go test -bench, count=$count)"
	go test -c -o "$work/bench.test" ./bench
	(cd bench && PODLINT_BENCH_CORPUS="$corpus" "$work/bench.test" -test.run=NONE \
		-test.bench='Floor|Pipeline|LargeFile|Stdin|Stage' -test.benchtime=1x -test.count="$count") |
		tee "$work/bench.txt" | grep -E '^(Benchmark|FAIL|panic)' || true
	if grep -q '^FAIL' "$work/bench.txt"; then
		echo "bench.sh: the benchmark suite failed" >&2
		exit 1
	fi
	suite=(-suite "$work/bench.txt")
fi

echo "== whole process"
"$work/perfdoc" -podlint "$work/podlint" -floor "$work/floor" -work "$work" -from "$corpus" \
	-label "${LABEL:-after}" -doc "${DOC-docs/performance.md}" -format "${FORMAT:-json}" \
	-pairs "${PAIRS:-5}" -runs "${RUNS:-3}" -scales "${SCALES:-1,2,4,8}" -large-mb "${LARGE_MB:-60}" \
	-small-runs "${SMALL_RUNS:-40}" "${suite[@]}"
echo "== done, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
