# Sourced by scripts/e2e-kubelet.sh and scripts/e2e-cluster.sh (bash): the
# pieces both harnesses share. The caller sets before sourcing:
#   name   the harness's name for messages (e2e-kubelet, e2e-cluster)
#   state  its state folder (removed at the end)
#   sock   containerd's socket (under state)
#   cache  the build cache (CACHE/bin/crictl)
# and uses: log, die, prio (run a daemon at the stack's priority), lock_runs,
# stack_netns, stack_containerd, stack_weigh_pods, teardown, finish, pids,
# holder, inns. Both harnesses start containerd, a kubelet and its Pods on
# the same machine-wide paths (/run/containerd, kubepods cgroups) and compare
# the host before and after, so they must never run at once: lock_runs
# takes /var/lock/podlint-e2e.lock (flock) for the whole run.

# shellcheck source=scripts/e2e-hostcheck.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e-hostcheck.sh"

log() { echo "$name: $(date -u +%H:%M:%S) $*" >&2; }
die() { echo "$name: $*" >&2; exit 1; }

stack_nice=${STACK_NICE:--10}
# prio COMMAND… runs it in a session of its own at niceness stack_nice, in
# the session's autogroup too (see e2e-kubelet.sh on why). An array, not a
# function: a backgrounded function runs in a subshell, and $! must be the
# daemon itself.
# shellcheck disable=SC2016
prio=(setsid -w sh -c '[ ! -w /proc/self/autogroup ] || echo "$0" >/proc/self/autogroup; exec nice -n "$0" "$@"' "$stack_nice")

# lock_runs takes the lock every harness run holds, or fails at once when
# another run (of either harness) holds it. The daemons inherit the
# descriptor, so that the lock stays held while any of them runs: a stack
# left running with KEEP=1 keeps the other harness out until TEARDOWN=1
# (which therefore does not take it) stops it.
lock_file=${LOCK:-/var/lock/podlint-e2e.lock}
lock_runs() {
	exec 9>>"$lock_file"
	flock -n 9 || die "another e2e run holds $lock_file (scripts/e2e-kubelet.sh or scripts/e2e-cluster.sh); wait for it"
}

# inns runs a command in the stack's network namespace. Background
# commands call nsenter directly instead: nsenter execs the command (no PID
# namespace, no fork), so that $! is the daemon itself, not a subshell that
# a kill would leave it running behind.
holder=
inns() { nsenter -t "$holder" -n -- "$@"; }

# stack_netns IF IP makes the stack's network namespace, held by a process
# of its own, with the node's address IP on a veth pair whose ends both stay
# in the namespace (these kernels have no dummy interfaces) and the default
# route on it. Nothing of it is on the host: it dies with the holder.
stack_netns() {
	local node_if=$1 node_ip=$2
	unshare --net -- sleep infinity &
	holder=$!
	pids+=("$holder")
	echo "$holder" >"$state/netns.pid"
	# nsenter must not run before unshare has switched, or it would enter
	# the host's namespace.
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
}

# stack_containerd starts containerd in the namespace on its own socket and
# root under STATE, with the CNI configuration folder $state/cni/net.d (the
# caller writes it), and imports the busybox image packed by e2e-kubelet.
stack_containerd() {
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
	log "starting containerd"
	"${prio[@]}" nsenter -t "$holder" -n -- containerd --config "$state/containerd/config.toml" >"$state/logs/containerd.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do [[ -S $sock ]] && break; sleep 0.1; done
	[[ -S $sock ]] || die "containerd did not come up; see $state/logs/containerd.log"
	ctr --address "$sock" -n k8s.io images import --all-platforms "$state/image/busybox.tar" >/dev/null
}

# stack_weigh_pods gives the Pods' cgroup (kubepods, which the kubelet gives
# the node's 2 CPUs' weight, 2048, once at its start) as much weight as a
# session at STACK_NICE: a container's own start (runc init runs in its
# cgroup), its probes' execs and its signal handlers took 0.3-2.7 s against
# five compiling sessions, which a node would not run beside its Pods.
stack_weigh_pods() {
	local pod_shares pod_weight
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
}

# stack_record_host records the host before anything starts, STATE
# included (it appears in the listing of /var/lib), and makes STATE;
# teardown compares the host after with that record.
stack_record_host() {
	local before outside
	before=$(host_state)
	outside=$(host_outside_now)
	mkdir -p "$state/host"
	echo "$before" >"$state/host/before"
	echo "$outside" >"$state/host/outside-before"
}

# teardown stops what pids holds, last started first (the namespace's
# holder goes last), after stop_first (a function the caller may define:
# what must go before the rest, such as Pods through the runtime), removes
# mounts and cgroups, what the stack wrote outside STATE, and STATE, and
# compares the host with its record: a difference returns 3.
pids=()
teardown() {
	set +e
	log "tearing down"
	if declare -F stop_first >/dev/null; then stop_first; fi
	if [[ -x $cache/bin/crictl && -S $sock ]]; then
		# Stop the Pods through the runtime, then the daemons.
		timeout 60 "$cache/bin/crictl" --runtime-endpoint "unix://$sock" rmp -fa >/dev/null 2>&1
	fi
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
			echo "$name: the host is not as it was before the run (< before, > after):" >&2
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

# stack_start refuses to start on top of another run of either harness
# (the lock) or of a run that did not tear down, installs the packages,
# and builds podlint and the kubelet harness (its image packer) into
# CACHE/bin after the caller's build script, given as arguments.
stack_start() {
	lock_runs
	[[ -e $state ]] && die "$state exists: another run is going on, or one did not tear down (TEARDOWN=1 $0 removes it)"
	stack_packages
	log "building into $cache (reused): $*"
	local built=$SECONDS
	CACHE=$cache KUBE_VERSION=$kube "$@"
	log "building podlint and the harness"
	# podlint observe reads the cluster with the podlint-observe beside it.
	(cd "$repo" && go build -o "$cache/bin/" ./cmd/podlint ./cmd/podlint-observe)
	(cd "$repo/e2e/kubelet" && go build -o "$cache/bin/e2e-kubelet" .)
	log "tools ready after $((SECONDS - built)) s"
}

# stack_packages installs what is missing of containerd, runc,
# busybox-static, the CNI plugins and iproute2 (they stay installed).
stack_packages() {
	local need=() pkgbin
	for pkgbin in containerd:/usr/bin/containerd runc:/usr/sbin/runc busybox-static:/bin/busybox \
		containernetworking-plugins:/usr/lib/cni/bridge iproute2:/usr/sbin/ip; do
		[[ -x ${pkgbin#*:} ]] || need+=("${pkgbin%%:*}")
	done
	# The image needs busybox-static's binary, not a dynamic busybox at that path.
	if [[ " ${need[*]} " != *" busybox-static "* ]] && ! dpkg -s busybox-static >/dev/null 2>&1; then need+=(busybox-static); fi
	if ((${#need[@]})); then
		# A fresh machine's package lists may be missing or stale:
		# install against current ones.
		log "apt-get update, then installing ${need[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get update >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
	fi
}
