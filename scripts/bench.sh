#!/usr/bin/env bash
# Measures podlint against its floor on the benchmark corpus (10 000
# workload documents of the sample corpus testdata/corpus, or of $CORPUS,
# 10 per file):
#   1. the benchmark suite in ./bench (floor, pipeline, stages, scaling),
#      COUNT runs each (default 3), medians and minimums printed with the
#      pipeline/floor ratios;
#   2. the real binary, `podlint check` on the same corpus written to disk,
#      RUNS times (default 5): median wall time and peak RSS (GNU time).
#
#   scripts/bench.sh            (env: CORPUS=testdata/corpus COUNT=3 RUNS=5)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=$(cd "${CORPUS:-testdata/corpus}" && pwd)
echo "== corpus: workload documents of $corpus"
count=${COUNT:-3}
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! [ -x /usr/bin/time ]; then
	echo "bench.sh: /usr/bin/time (GNU time) is missing: apt-get install time" >&2
	exit 1
fi

echo "== benchmark suite (go test -bench, count=$count)"
go test -c -o "$work/bench.test" ./bench
(cd bench && export PODLINT_BENCH_CORPUS="$corpus" && "$work/bench.test" -test.run=NONE -test.bench='Floor|Pipeline|Stage' -test.benchtime=2x -test.count="$count" &&
	"$work/bench.test" -test.run=NONE -test.bench='Scaling' -test.benchtime=1x -test.count="$count") |
	tee "$work/bench.txt" | grep -E '^(Benchmark|FAIL)' || true
echo
# Other work on the machine inflates wall times; the minimum is the least
# disturbed run, and CPU time per document (all threads, GC included) moves
# least of all.
echo "== per benchmark: median and minimum wall time, CPU time and allocations per document"
awk '
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "ns/op")      ns[name] = ns[name] " " $i
		if ($(i+1) == "cpu-ns/doc") cpu[name] = cpu[name] " " $i
		if ($(i+1) == "allocs/doc") al[name] = al[name] " " $i
		if ($(i+1) == "B/doc")      by[name] = by[name] " " $i
		if ($(i+1) == "MB/s")       mbs[name] = mbs[name] " " $i
	}
	if (!(name in seen)) { seen[name] = 1; order[++n] = name }
}
function sort(s, a,   k, i, j, t) {
	k = split(s, a, " ")
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k
}
function median(s,   a, k) { k = sort(s, a); return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
function minimum(s,   a) { sort(s, a); return a[1] }
END {
	printf "%-30s %9s %9s %8s %12s %11s %9s\n", "benchmark", "median s", "min s", "MB/s", "cpu-us/doc", "allocs/doc", "KB/doc"
	for (i = 1; i <= n; i++) {
		m = order[i]; med[m] = median(ns[m]); mn[m] = minimum(ns[m]); mc[m] = median(cpu[m])
		printf "%-30s %9.3f %9.3f %8.1f %12.1f %11.1f %9.1f\n", m, med[m] / 1e9, mn[m] / 1e9, median(mbs[m]), mc[m] / 1e3, median(al[m]), median(by[m]) / 1024
	}
	p = "BenchmarkPipeline"
	for (i = 1; i <= n; i++) if (order[i] ~ /^BenchmarkFloor\//)
		printf "pipeline / floor %-13s wall: median %.2f, min %.2f; cpu %.2f\n", substr(order[i], 16), med[p] / med[order[i]], mn[p] / mn[order[i]], mc[p] / mc[order[i]]
}' "$work/bench.txt"

echo
echo "== real binary"
go build -o "$work/podlint" ./cmd/podlint
go run -tags gencorpus ./bench/gencorpus -from "$corpus" "$work/corpus"
for i in $(seq "$runs"); do
	/usr/bin/time -f '%e %M' -o "$work/time.$i" "$work/podlint" check --no-config --color never "$work/corpus" >/dev/null || true
done
cat "$work"/time.* | sort -n | awk '{ t[NR] = $1; if ($2 > rss) rss = $2 }
END { printf "podlint check: median %.2f s over %d runs, peak RSS %.1f MiB\n", t[int((NR + 1) / 2)], NR, rss / 1024 }'
