#!/usr/bin/env bash
# Checks podlint's timeline against a real kubelet and writes the results
# table to docs/validation.md (see "How it runs" there).
#
#   sudo scripts/e2e-kubelet.sh          # as root, on Debian 12 or later
#   env: CACHE=/var/cache/podlint-e2e (kubelet and crictl builds, reused)
#        STATE=/var/lib/podlint-e2e (containerd, kubelet and Pod state; removed at the end)
#        KUBE_VERSION=v1.37.2  RUNS=1 (runs of every scenario)
#        ONLY=regexp (scenarios to run)  DOC=docs/validation.md (empty: print the table)
#        KEEP=1 (leave everything running and in place for a look; tear down with TEARDOWN=1)
#        REUSE=1 (run the scenarios again on a stack kept with KEEP=1; it stays kept)
#        STACK_NICE=-10 (priority of containerd, the kubelet, their children and
#        the harness: see below)
#
# From nothing it runs apt-get update and installs containerd, runc,
# busybox-static and the CNI plugins, builds the kubelet
# (k8s.io/kubernetes@KUBE_VERSION through the Go proxy) and crictl into CACHE
# (see e2e/kubelet/build.sh; 35 minutes under load on 2 cores), starts
# containerd on its own socket and root, imports busybox-static as the only
# image, starts a standalone kubelet (static Pods from a folder, no API
# server) on 127.0.0.1:10750, runs the scenarios of e2e/kubelet with several
# Pods at once, writes the table, and tears everything down: processes,
# mounts, cgroups, STATE and what the stack wrote outside it (installed
# packages stay). About 3 minutes a run once the tools are built.
#
# Disk: besides CACHE (the prepared kubernetes source and the binaries, about
# 0.2 GB), the build fills Go's own caches, about 3 GB, which stay: the module
# cache (`go env GOMODCACHE`, /root/go/pkg/mod for root) and the build cache
# (`go env GOCACHE`, /root/.cache/go-build). `go clean -cache -modcache`
# empties them (for every project of that user).
#
# The host is left as it was, and checked: containerd, the kubelet, the Pods
# and the harness run in a private network namespace (its bridge, routes and
# sysctls, such as the ip_forward the CNI bridge's isGateway sets, die with
# it), and the script records the host's state before the run (every
# sysctl under /proc/sys/net and those the kubelet tunes, the netfilter
# tables and nft rules, links, addresses, routes, mounts, cgroups and the
# folders the stack writes outside STATE) and compares it after the
# tear-down: a difference fails the run (exit 3) and is printed.
# Not part of .ci/run: it needs root and minutes.
#
# The stack runs at priority STACK_NICE (-10): on a node the kubelet and the
# runtime have their CPU reserved (kube-reserved, system-reserved), and the
# model describes that node, not one where they wait for a compiler. With
# the kernel's autogroup scheduling (kernel.sched_autogroup_enabled=1) a
# process's niceness only counts against its own session, so each daemon
# and the harness start in a session of their own (setsid) whose autogroup
# gets that niceness (/proc/self/autogroup). On a 2-core machine shared with
# five compiling sessions (CPU pressure 97 %) the stack at the priority of
# any other session saw restarts 1-4 s late and exec probes taking 0.5-2 s.
# The Pods' cgroup (kubepods) gets the same weight (see below).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${CACHE:-/var/cache/podlint-e2e}
state=${STATE:-/var/lib/podlint-e2e}
kube=${KUBE_VERSION:-v1.37.2}
port=10750
healthz=10748
bridge=pl-e2e0
subnet=10.237.0.0/24
# The node's own address, on a veth pair whose ends both stay in the
# namespace (these kernels have no dummy interfaces).
node_if=pl-e2e-n
node_ip=10.237.1.1
sock=$state/containerd/containerd.sock
bin=$cache/bin
name=e2e-kubelet
# log, die, prio, lock_runs, stack_*, teardown, finish, pids, holder, inns;
# host_state and the rest of the host check.
# shellcheck source=scripts/e2e-stack.sh
. "$repo/scripts/e2e-stack.sh"

[[ $(id -u) == 0 ]] || die "needs root (it starts containerd and a kubelet)"
command -v go >/dev/null || die "needs Go (the version in go.mod) on PATH"

# The static Pods' manifests go first: the kubelet then stops them itself.
stop_first() {
	if [[ -d $state/manifests ]]; then
		rm -f "$state"/manifests/*.yaml
	fi
}

if [[ -n ${TEARDOWN:-} ]]; then
	holder=$(cat "$state/netns.pid" 2>/dev/null || true)
	pids=($holder $(pgrep -f "ctr --address $sock" || true) $(pgrep -f "containerd --config $state/" || true) $(pgrep -f "$bin/kubelet --config=$state/" || true))
	teardown
	exit
fi

# A stack kept with KEEP=1 holds the lock (its daemons inherit it): REUSE
# and TEARDOWN run on it without taking it.
if [[ -n ${REUSE:-} ]]; then
	holder=$(cat "$state/netns.pid" 2>/dev/null || true)
	[[ -n $holder ]] && kill -0 "$holder" 2>/dev/null || die "REUSE: no stack kept with KEEP=1 under $state"
	log "running the scenarios again on the kept stack"
	"${prio[@]}" nsenter -t "$holder" -n -- "$cache/bin/e2e-kubelet" run -state "$state" -podlint "$cache/bin/podlint" \
		-kubelet "https://127.0.0.1:$port" -kubelet-log "$state/logs/kubelet.log" -events "$state/logs/events.log" \
		-kube-version "$kube" -runs "${RUNS:-1}" -only "${ONLY:-}" -doc "${DOC-$repo/docs/validation.md}" &
	# In the background and waited for: a trapped or fatal signal then
	# ends the wait at once (the harness is in a session of its own).
	wait $!
	exit
fi

# Refuse to start on top of another run, then build the kubelet and
# crictl (reused).
stack_start "$repo/e2e/kubelet/build.sh"

stack_record_host
trap finish EXIT
mkdir -p "$state"/{containerd/root,containerd/state,cni/net.d,cni/ipam,kubelet,manifests,obs,logs,image}
stack_netns "$node_if" "$node_ip"

# A bridge without masquerade in the private namespace: Pods reach each
# other and the kubelet reaches them (HTTP probes). isGateway gives the
# bridge its address and sets net.ipv4.ip_forward, in this namespace only.
cat >"$state/cni/net.d/10-podlint-e2e.conflist" <<JSON
{"cniVersion": "1.0.0", "name": "podlint-e2e", "plugins": [
  {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$subnet"}]], "dataDir": "$state/cni/ipam"}},
  {"type": "loopback"}]}
JSON

stack_containerd

cat >"$state/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $healthz
staticPodPath: $state/manifests
containerRuntimeEndpoint: unix://$sock
podLogsDir: $state/logs/pods
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
makeIPTablesUtilChains: false
registerNode: false
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "1Mi", nodefs.available: "1%", imagefs.available: "1%"}
YAML

log "starting the kubelet"
"${prio[@]}" nsenter -t "$holder" -n -- "$bin/kubelet" --config="$state/kubelet/config.yaml" --root-dir="$state/kubelet/root" \
	--cert-dir="$state/kubelet/pki" --node-ip="$node_ip" \
	--hostname-override=podlint-e2e --v=4 >"$state/logs/kubelet.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
	inns curl -fsS "http://127.0.0.1:$healthz/healthz" >/dev/null 2>&1 && break
	kill -0 "${pids[-1]}" 2>/dev/null || die "the kubelet exited; see $state/logs/kubelet.log: $(tail -3 "$state/logs/kubelet.log")"
	sleep 0.2
done
inns curl -fsS "http://127.0.0.1:$healthz/healthz" >/dev/null || die "the kubelet is not healthy after 60 s; see $state/logs/kubelet.log"
healthy=$(date +%s.%N)

stack_weigh_pods

"${prio[@]}" ctr --address "$sock" -n k8s.io events >"$state/logs/events.log" 2>&1 &
pids+=($!)

log "running the scenarios"
set +e
"${prio[@]}" nsenter -t "$holder" -n -- "$cache/bin/e2e-kubelet" run -state "$state" -podlint "$cache/bin/podlint" \
	-kubelet "https://127.0.0.1:$port" -kubelet-log "$state/logs/kubelet.log" -events "$state/logs/events.log" \
	-kube-version "$kube" -kubelet-healthy "$healthy" -runs "${RUNS:-1}" -only "${ONLY:-}" -doc "${DOC-$repo/docs/validation.md}" &
# Waited for in the background, and stopped first by the tear-down: an
# interrupt then ends the wait at once.
pids+=($!)
wait $!
rc=$?
unset 'pids[-1]'

set -e
if [[ -n ${KEEP:-} ]]; then
	trap - EXIT
	log "KEEP: left running; REUSE=1 $0 runs the scenarios again on it, TEARDOWN=1 $0 removes it"
fi
exit $rc
