#!/usr/bin/env bash
# The end-to-end test of `podlint observe` (docs/observe.md) against the
# real API server of scripts/e2e-cluster.sh: as the admin it creates a
# Deployment whose first start in each Pod is slower than its liveness
# window (killed before Ready, then Ready in 3 s), one that ignores SIGTERM
# and is deleted, one OOM-killed again and again, a failing Job and a Pod
# that outlives its ReplicaSet; while `podlint observe --watch` records
# them as the user bound only to the ClusterRole docs/observe.md documents
# (whose create, patch and delete must each be Forbidden); then `podlint
# check --observed` must name the kills before Ready with the observed
# start-ups, and the SIGKILL. See e2e/cluster/observelive.go.
#
#   sudo scripts/e2e-observe.sh
#   env: OUT=DIR (the manifest, profiles, lists and podlint's output; default a new folder in /tmp)
#        RECORD=1 (also refresh internal/observe/testdata/recorded from this run, scrubbed)
#        WATCH=80s (how long podlint observe watches)
#        STATE=/var/lib/podlint-e2e-cluster CACHE=/var/cache/podlint-e2e (as scripts/e2e-cluster.sh)
#
# On a cluster kept with `KEEP=1 SCENARIOS=0 scripts/e2e-cluster.sh` it runs
# on that cluster and leaves it running; without one it starts it the same
# way and tears it down at the end (TEARDOWN=1), host check included.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
state=${STATE:-/var/lib/podlint-e2e-cluster}
cache=${CACHE:-/var/cache/podlint-e2e}
out=${OUT:-$(mktemp -d /tmp/podlint-e2e-observe.XXXXXX)}
log() { echo "e2e-observe: $(date -u +%H:%M:%S) $*" >&2; }
die() { echo "e2e-observe: $*" >&2; exit 1; }

[[ $(id -u) == 0 ]] || die "needs root (it starts or enters the cluster of scripts/e2e-cluster.sh)"
command -v go >/dev/null || die "needs Go (the version in go.mod) on PATH"

kept=
if [[ -f $state/netns.pid ]] && kill -0 "$(cat "$state/netns.pid")" 2>/dev/null; then
	kept=1
	log "using the cluster kept under $state"
else
	log "starting a cluster (KEEP=1 SCENARIOS=0 scripts/e2e-cluster.sh)"
	KEEP=1 SCENARIOS=0 STATE=$state CACHE=$cache "$repo/scripts/e2e-cluster.sh"
	trap 'log "tearing the cluster down"; TEARDOWN=1 STATE=$state CACHE=$cache "$repo/scripts/e2e-cluster.sh"' EXIT
fi
holder=$(cat "$state/netns.pid")
pki=$state/pki

bin=$(mktemp -d /tmp/podlint-e2e-observe-bin.XXXXXX)
# podlint observe reads the cluster with the podlint-observe beside it.
(cd "$repo" && go build -o "$bin/" ./cmd/podlint ./cmd/podlint-observe)
(cd "$repo/e2e/cluster" && go build -o "$bin/e2e-cluster" .)

log "running; output in $out"
rc=0
nsenter -t "$holder" -n -- "$bin/e2e-cluster" observe -kubeconfig "$pki/admin.kubeconfig" \
	-observer "$pki/observer.kubeconfig" -podlint "$bin/podlint" -out "$out" -watch "${WATCH:-80s}" || rc=$?
if [[ $rc == 0 && -n ${RECORD:-} ]]; then
	for f in lists watch-pods; do
		(cd "$repo" && go run -tags observescrub ./internal/observe/cmd/scrub <"$out/$f.json" >"internal/observe/testdata/recorded/$f.json")
	done
	log "refreshed internal/observe/testdata/recorded (scrubbed): run go test ./internal/observe"
fi
rm -rf "$bin"
[[ -n $kept ]] && log "the cluster stays running (TEARDOWN=1 scripts/e2e-cluster.sh removes it)"
exit $rc
