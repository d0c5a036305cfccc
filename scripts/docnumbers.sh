#!/usr/bin/env bash
# Measures the numbers the documentation states (binary sizes, the memory
# cgo adds, the size of the module download; with SUITE=1 also the test
# suite's time with an empty and a full build cache) and rewrites them in
# README.md, CONTRIBUTING.md and docs/ci.md between their
# <!-- n:KEY --> … <!-- /n --> markers (internal/docnumbers lists the keys;
# its test fails on a marker it does not know).
#
#   scripts/docnumbers.sh          # measure and rewrite
#   env: SUITE=1 (time go test ./..., several minutes)  WRITE=0 (print only)
#
# Run it on a quiet machine: sizes do not depend on the load, the suite's
# times do.
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
[[ ${WRITE:-1} == 1 ]] && args+=(-write)
[[ ${SUITE:-0} == 1 ]] && args+=(-suite)
exec go run -tags benchtools ./bench/docnumbers "${args[@]}"
