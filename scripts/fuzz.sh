#!/usr/bin/env bash
# Runs every fuzz target of podlint, one after another, for SECONDS each
# (default 60), with one fuzzing worker so that the machine stays usable.
#
#   scripts/fuzz.sh [SECONDS]
#
# A crasher is written by Go to <package>/testdata/fuzz/<FuzzName>/ (Go only
# looks for testdata/fuzz inside the package directory); fix the bug, keep
# the file, and plain `go test` replays it from then on. Logs go to
# ${FUZZ_LOG_DIR:-/tmp/podlint-fuzz}/<FuzzName>.log.
set -u
cd "$(dirname "$0")/.."
secs=${1:-60}
logs=${FUZZ_LOG_DIR:-/tmp/podlint-fuzz}
mkdir -p "$logs"

targets=(
	"./manifest FuzzSplitParseLocate"
	"./manifest FuzzDecode"
	"./manifest FuzzEdit"
	"./timeline FuzzCompute"
	"./internal/cli FuzzRun"
	"./report FuzzWriters"
	"./render FuzzRenderTree"
)

failed=0
printf '%-22s %-8s %12s  %s\n' TARGET RESULT EXECS LOG
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	log="$logs/$name.log"
	# -timeout=0: go test's default 10m timeout would otherwise end long runs.
	if go test -run=NONE -fuzz="^${name}\$" -fuzztime="${secs}s" -timeout=0 -parallel=1 "$pkg" >"$log" 2>&1; then
		result=ok
	else
		result=FAIL
		failed=1
	fi
	execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	printf '%-22s %-8s %12s  %s\n' "$name" "$result" "${execs:-?}" "$log"
done
exit $failed
