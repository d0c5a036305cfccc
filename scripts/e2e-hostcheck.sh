# Sourced by scripts/e2e-kubelet.sh (bash): what a run must leave on the
# host as it found it, and the removal of what it created outside its state
# folder. e2e/kubelet's TestHostCheck runs these functions on a folder tree
# standing in for the host (HOST_ROOT), so that the check is itself tested.
#
# HOST_ROOT prefixes the paths read and removed (empty: the host). Under a
# prefix only the file-system sections are recorded: links, routes, mounts,
# cgroups, netfilter rules and processes have no stand-in.
host_root=${HOST_ROOT:-}

# Paths containerd 1.6 (runc root, shim sockets), the CNI library (its
# result cache) and the kubelet (device plugins, log links) write whatever
# their configuration says, and libmount's /run/mount (utab), which mount
# and umount create. Tear-down removes what of them the run created.
host_outside=(/run/mount /run/containerd /run/containerd/runc /run/containerd/s /var/lib/cni /var/lib/cni/results
	/var/lib/kubelet /var/lib/kubelet/device-plugins /var/lib/kubelet/pod-resources /var/log/containers /var/log/pods)

# host_outside_now lists what exists under the paths above, sorted.
host_outside_now() {
	{ find "${host_outside[@]/#/$host_root}" 2>/dev/null || true; } | sort
}

# host_state prints what a run must leave as it found it. Reading
# /proc/net/*_tables_names, not `iptables-legacy -S`, which itself creates a table.
host_state() {
	echo "## sysctls"
	# Every network sysctl of the host's namespace (net.ipv4.ip_forward,
	# which the CNI bridge's isGateway sets, the bridge-nf-call ones, …).
	grep -r -H . "$host_root/proc/sys/net" 2>/dev/null | sort
	# What the kubelet's container manager tunes (the build only logs it).
	local f
	for f in vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes; do
		grep -H . "$host_root/proc/sys/$f" 2>/dev/null || true
	done
	echo "## folders"
	{ find "$host_root/run" "$host_root/var/lib" "$host_root/var/log" "$host_root/etc" "$host_root/opt" -maxdepth 1 2>/dev/null || true; } | sort
	host_outside_now
	[[ -z $host_root ]] || return 0
	echo "## netfilter"
	grep -H . /proc/net/ip_tables_names /proc/net/ip6_tables_names /proc/net/arp_tables_names 2>/dev/null || true
	# nftables, through nft or, where only iptables is installed (the CNI
	# plugins' dependency), its nft backend's save, which creates nothing.
	if command -v nft >/dev/null; then nft list ruleset 2>&1; fi
	local save
	for save in iptables-nft-save ip6tables-nft-save; do
		if command -v "$save" >/dev/null; then "$save" 2>&1 | grep -v '^#' || true; fi
	done
	echo "## network"
	ip -o link show | awk '{print $2, $3}'
	ip -o addr show | awk '{print $2, $3, $4}'
	ip route show table all
	echo "## mounts"
	awk '{print $5, $9}' /proc/self/mountinfo | sort
	echo "## cgroups"
	find /sys/fs/cgroup -maxdepth 2 -type d | sort
	echo "## processes"
	# By program: a command line naming the state folder would match this
	# script's own subshells.
	pgrep -a -f '^(\S*/)?(containerd|containerd-shim-runc-v2|kubelet|ctr|e2e-kubelet|etcd|kube-apiserver|kube-controller-manager|kube-scheduler|e2e-cluster)( |$)' || true
}

# host_remove_created removes what exists under the outside paths now and
# was not in the list `before` (host_outside_now's output from before the
# run), and nothing else.
host_remove_created() {
	local before=$1 p
	host_outside_now | comm -13 "$before" - | while read -r p; do
		rm -rf -- "$p"
	done
}

# host_compare compares the host with the record `before` (host_state's
# output): it prints the differences and fails when there are any.
host_compare() {
	local diffs
	diffs=$(diff "$1" <(host_state) || true)
	[[ -z $diffs ]] && return 0
	echo "$diffs"
	return 1
}
