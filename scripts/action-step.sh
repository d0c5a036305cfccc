#!/usr/bin/env bash
# Measures the GitHub Action's lint step on a folder of manifests, charts
# and kustomizations, as the action ran it before one run wrote every
# report (four `podlint check` runs, one per report, and `podlint timeline
# -f mermaid` for each of the first ten files with findings) and as it runs
# it now (one `podlint check` with -f FORMAT=FILE for each report).
#
#   scripts/action-step.sh DIR [RUNS]      (RUNS: 5 by default)
#
# Prints, for each way, the median over RUNS of the wall time and of the
# CPU time (user + system, children included: rendering runs in child
# processes), and the ratio. The two ways alternate, so that a change in
# the machine's load falls on both. CPU time is the reading to trust on a
# shared machine. Needs /usr/bin/time (Debian: apt-get install time).
set -euo pipefail
dir=${1:?usage: scripts/action-step.sh DIR [RUNS]}
runs=${2:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -C "$repo" -trimpath -o "$work/podlint" ./cmd/podlint
podlint=$work/podlint
out=$work/out
mkdir -p "$out"
cd "$dir"

before() {
  "$podlint" check --color always -f text -- . >/dev/null 2>&1 || true
  "$podlint" check -f sarif -o "$out/podlint.sarif" --category podlint --src-root "$PWD" -- . 2>/dev/null || true
  "$podlint" check -f github -o "$out/annotations" --src-root "$PWD" -- . 2>/dev/null || true
  "$podlint" check -f markdown --timelines 0 -o "$out/summary.md" --src-root "$PWD" -- . 2>/dev/null || true
  sed -nE 's/^::(error|warning|notice) file=([^,]*).*/\2/p' "$out/annotations" | awk '!seen[$0]++' | head -n 10 |
    while IFS= read -r f; do "$podlint" timeline -f mermaid -- "$f" >/dev/null 2>&1 || true; done
}

after() {
  "$podlint" check --color always -f text -f "sarif=$out/podlint.sarif" -f "github=$out/annotations" -f "markdown=$out/summary.md" \
    --category podlint --src-root "$PWD" -- . >/dev/null 2>&1 || true
}

# measure WAY appends "wall cpu" (seconds) to $work/WAY.
measure() {
  /usr/bin/time -f "%e %U %S" -o "$work/t" bash -c "$(declare -f "$1"); podlint=$podlint out=$out; $1"
  awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$work/t" >>"$work/$1"
}

before # warm the file cache and the build
for _ in $(seq "$runs"); do
  measure before
  measure after
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bw=$(cut -d' ' -f1 "$work/before" | median) bc=$(cut -d' ' -f2 "$work/before" | median)
aw=$(cut -d' ' -f1 "$work/after" | median) ac=$(cut -d' ' -f2 "$work/after" | median)
echo "findings: $(grep -cE '^::(error|warning|notice) ' "$out/annotations" || true), runs: $runs"
printf 'before (4 checks + timelines): wall %ss, CPU %ss\n' "$bw" "$bc"
printf 'after  (1 check):              wall %ss, CPU %ss\n' "$aw" "$ac"
awk -v bw="$bw" -v aw="$aw" -v bc="$bc" -v ac="$ac" 'BEGIN { printf "after/before: wall %.2f, CPU %.2f\n", aw / bw, ac / bc }'
