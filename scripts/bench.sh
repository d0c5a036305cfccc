#!/usr/bin/env bash
# Measures podlint against its floor on the benchmark corpus (10 000
# workload documents of ../shared/corpus, 10 per file):
#   1. the benchmark suite in ./bench (floor, pipeline, stages, scaling),
#      COUNT runs each (default 5), medians printed with the
#      pipeline/floor ratios;
#   2. the real binary, `podlint check` on the same corpus written to disk,
#      RUNS times (default 5): median wall time and peak RSS (GNU time).
#
#   scripts/bench.sh            CORPUS=/path/to/corpus COUNT=5 RUNS=5
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${CORPUS:-../shared/corpus}
count=${COUNT:-5}
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! [ -x /usr/bin/time ]; then
	echo "bench.sh: /usr/bin/time (GNU time) is missing: apt-get install time" >&2
	exit 1
fi

echo "== benchmark suite (go test -bench, count=$count)"
go test -run=NONE -bench='Floor|Pipeline|Stage|Scaling' -benchtime=3x -count="$count" ./bench | tee "$work/bench.txt" | grep -E '^(Benchmark|ok|FAIL)' || true
echo
echo "== medians"
awk '
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "ns/op")      ns[name] = ns[name] " " $i
		if ($(i+1) == "allocs/doc") al[name] = al[name] " " $i
		if ($(i+1) == "MB/s")       mbs[name] = mbs[name] " " $i
	}
	if (!(name in seen)) { seen[name] = 1; order[++n] = name }
}
function median(s,   a, k, i, j, t) {
	k = split(s, a, " ")
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
	printf "%-36s %10s %9s %11s\n", "benchmark", "seconds", "MB/s", "allocs/doc"
	for (i = 1; i <= n; i++) {
		m = order[i]; med[m] = median(ns[m])
		printf "%-36s %10.3f %9.1f %11.1f\n", m, med[m] / 1e9, median(mbs[m]), median(al[m])
	}
	p = med["BenchmarkPipeline"]
	for (i = 1; i <= n; i++) if (order[i] ~ /^BenchmarkFloor\//)
		printf "pipeline / %-25s %6.2f\n", substr(order[i], 16), p / med[order[i]]
}' "$work/bench.txt"

echo
echo "== real binary"
go build -o "$work/podlint" ./cmd/podlint
go run ./bench/gencorpus -from "$corpus" "$work/corpus"
for i in $(seq "$runs"); do
	/usr/bin/time -f '%e %M' -o "$work/time.$i" "$work/podlint" check --no-config --color never "$work/corpus" >/dev/null || true
done
cat "$work"/time.* | sort -n | awk '{ t[NR] = $1; if ($2 > rss) rss = $2 }
END { printf "podlint check: median %.2f s over %d runs, peak RSS %.1f MiB\n", t[int((NR + 1) / 2)], NR, rss / 1024 }'
