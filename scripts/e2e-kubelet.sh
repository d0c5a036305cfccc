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
stack_nice=${STACK_NICE:--10}
# prio COMMAND… runs it in a session of its own at niceness stack_nice, in
# the session's autogroup too. An array, not a function: a backgrounded
# function runs in a subshell, and $! must be the daemon itself.
# shellcheck disable=SC2016
prio=(setsid -w sh -c '[ ! -w /proc/self/autogroup ] || echo "$0" >/proc/self/autogroup; exec nice -n "$0" "$@"' "$stack_nice")

die() { echo "e2e-kubelet: $*" >&2; exit 1; }
log() { echo "e2e-kubelet: $(date -u +%H:%M:%S) $*" >&2; }

[[ $(id -u) == 0 ]] || die "needs root (it starts containerd and a kubelet)"
command -v go >/dev/null || die "needs Go (the version in go.mod) on PATH"

# host_state, host_outside_now, host_remove_created, host_compare.
# shellcheck source=scripts/e2e-hostcheck.sh
. "$repo/scripts/e2e-hostcheck.sh"

# inns runs a command in the stack's network namespace. Background
# commands call nsenter directly instead: nsenter execs the command (no PID
# namespace, no fork), so that $! is the daemon itself, not a subshell that
# a kill would leave it running behind.
holder=
inns() { nsenter -t "$holder" -n -- "$@"; }

pids=()
teardown() {
	set +e
	log "tearing down"
	if [[ -d $state/manifests ]]; then
		rm -f "$state"/manifests/*.yaml
	fi
	if [[ -x $bin/crictl && -S $sock ]]; then
		# Stop the Pods through the runtime, then the daemons.
		timeout 60 "$bin/crictl" --runtime-endpoint "unix://$sock" rmp -fa >/dev/null 2>&1
	fi
	# Last started, first stopped: the namespace's holder goes last.
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill "${pids[i]}" 2>/dev/null
		for _ in $(seq 50); do kill -0 "${pids[i]}" 2>/dev/null || break; sleep 0.1; done
		kill -9 "${pids[i]}" 2>/dev/null
	done
	# Shims outlive containerd when it is killed; ours carry our socket.
	for p in $(pgrep -f "containerd-shim-runc-v2 .*-address $sock" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	# Mounts under STATE, deepest first.
	awk -v s="$state" '$5 == s || index($5, s "/") == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	# The kubelet's cgroups (cgroupfs driver): kubepods under each hierarchy.
	for d in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods /sys/fs/cgroup/*/podlint-e2e /sys/fs/cgroup/podlint-e2e; do
		[[ -d $d ]] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	# What the stack created outside STATE, and only that.
	if [[ -f $state/host/outside-before ]]; then
		host_remove_created "$state/host/outside-before"
	fi
	local before=
	[[ -f $state/host/before ]] && before=$(cat "$state/host/before")
	rm -rf "$state"
	if [[ -n $before ]]; then
		local diffs
		if ! diffs=$(host_compare <(echo "$before")); then
			echo "e2e-kubelet: the host is not as it was before the run (< before, > after):" >&2
			echo "$diffs" >&2
			log "done, host differs"
			return 3
		fi
		log "done; the host's sysctls, netfilter rules, links, routes, mounts, cgroups and folders are as before"
		return 0
	fi
	log "done (no record of the host before the run to compare with)"
}

finish() {
	local rc=$?
	trap - EXIT
	teardown
	local trc=$?
	((rc != 0)) && exit "$rc"
	exit "$trc"
}

if [[ -n ${TEARDOWN:-} ]]; then
	holder=$(cat "$state/netns.pid" 2>/dev/null || true)
	pids=($holder $(pgrep -f "ctr --address $sock" || true) $(pgrep -f "containerd --config $state/" || true) $(pgrep -f "$bin/kubelet --config=$state/" || true))
	teardown
	exit
fi

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

# Refuse to start on top of something.
[[ -e $state ]] && die "$state exists: another run is going on, or one did not tear down (TEARDOWN=1 $0 removes it)"

# Packages (they stay installed).
need=()
for pkgbin in containerd:/usr/bin/containerd runc:/usr/sbin/runc busybox-static:/bin/busybox \
	containernetworking-plugins:/usr/lib/cni/bridge iproute2:/usr/sbin/ip; do
	[[ -x ${pkgbin#*:} ]] || need+=("${pkgbin%%:*}")
done
# The image needs busybox-static's binary, not a dynamic busybox at that path.
if [[ " ${need[*]} " != *" busybox-static "* ]] && ! dpkg -s busybox-static >/dev/null 2>&1; then need+=(busybox-static); fi
if ((${#need[@]})); then
	# A fresh machine's package lists may be missing or stale: install
	# against current ones.
	log "apt-get update, then installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get update >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
fi

log "building the kubelet $kube and crictl into $bin (reused)"
built=$SECONDS
CACHE=$cache KUBE_VERSION=$kube "$repo/e2e/kubelet/build.sh"
log "building podlint and the harness"
(cd "$repo" && go build -o "$cache/bin/podlint" ./cmd/podlint)
(cd "$repo/e2e/kubelet" && go build -o "$cache/bin/e2e-kubelet" .)
log "tools ready after $((SECONDS - built)) s"

before=$(host_state)
trap finish EXIT
mkdir -p "$state"/{containerd/root,containerd/state,cni/net.d,cni/ipam,kubelet,manifests,obs,logs,image,host}
echo "$before" >"$state/host/before"
host_outside_now >"$state/host/outside-before"

# The stack's network namespace, held by a process of its own; nsenter
# must not run before unshare has switched, or it would enter the host's.
unshare --net -- sleep infinity &
holder=$!
pids+=("$holder")
echo "$holder" >"$state/netns.pid"
for _ in $(seq 100); do
	[[ $(readlink "/proc/$holder/ns/net" 2>/dev/null) != "$(readlink /proc/self/ns/net)" ]] && break
	sleep 0.05
done
[[ $(readlink "/proc/$holder/ns/net") != "$(readlink /proc/self/ns/net)" ]] || die "unshare --net did not take effect"
inns ip link set lo up
inns ip link add "$node_if" type veth peer name "$node_if-p"
inns ip addr add "$node_ip/24" dev "$node_if"
inns ip link set "$node_if" up
inns ip link set "$node_if-p" up
inns ip route add default dev "$node_if"

# The image: busybox-static as an OCI layout, for the app and the sandbox.
log "packing busybox-static as an image"
"$cache/bin/e2e-kubelet" image -busybox /bin/busybox -out "$state/image/busybox.tar"

cat >"$state/containerd/config.toml" <<TOML
version = 2
root = "$state/containerd/root"
state = "$state/containerd/state"
[grpc]
  address = "$sock"
[ttrpc]
  address = "$sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$state/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "podlint.local/pause:e2e"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  # root here lacks CAP_SYS_RESOURCE: without this every sandbox fails with
  # "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  enable_selinux = false
  # Network namespaces under STATE too, so that tear-down finds them.
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$state/cni/net.d"
TOML
# A bridge without masquerade in the private namespace: Pods reach each
# other and the kubelet reaches them (HTTP probes). isGateway gives the
# bridge its address and sets net.ipv4.ip_forward, in this namespace only.
cat >"$state/cni/net.d/10-podlint-e2e.conflist" <<JSON
{"cniVersion": "1.0.0", "name": "podlint-e2e", "plugins": [
  {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$subnet"}]], "dataDir": "$state/cni/ipam"}},
  {"type": "loopback"}]}
JSON

log "starting containerd"
"${prio[@]}" nsenter -t "$holder" -n -- containerd --config "$state/containerd/config.toml" >"$state/logs/containerd.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -S $sock ]] && break; sleep 0.1; done
[[ -S $sock ]] || die "containerd did not come up; see $state/logs/containerd.log"
ctr --address "$sock" -n k8s.io images import --all-platforms "$state/image/busybox.tar" >/dev/null

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

# The Pods' cgroup (kubepods, which the kubelet gives the node's 2 CPUs'
# weight, 2048, once at its start) weighs as much as a session at
# STACK_NICE: a container's own start (runc init runs in its cgroup), its
# probes' execs and its signal handlers took 0.3-2.7 s against five
# compiling sessions, which a node would not run beside its Pods.
pod_shares=$(awk -v n="$stack_nice" 'BEGIN { w = 1024 * 1.25 ^ (-n); if (w < 2048) w = 2048; printf "%d", w }')
pod_weight=$(awk -v s="$pod_shares" 'BEGIN { w = 1 + (s - 2) * 9999 / 262142; printf "%d", w }')
for _ in $(seq 50); do [[ -d /sys/fs/cgroup/cpu/kubepods || -d /sys/fs/cgroup/kubepods ]] && break; sleep 0.1; done
if [[ -w /sys/fs/cgroup/cpu/kubepods/cpu.shares ]]; then
	echo "$pod_shares" >/sys/fs/cgroup/cpu/kubepods/cpu.shares
elif [[ -w /sys/fs/cgroup/kubepods/cpu.weight ]]; then
	echo "$pod_weight" >/sys/fs/cgroup/kubepods/cpu.weight
else
	log "no kubepods cgroup to weigh; the Pods compete with the rest of the machine"
fi

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
