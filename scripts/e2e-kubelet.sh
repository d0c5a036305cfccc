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
#
# From nothing it installs containerd, runc, busybox-static and the CNI
# plugins with apt-get, builds the kubelet (k8s.io/kubernetes@KUBE_VERSION
# through the Go proxy) and crictl into CACHE (about 7 CPU-minutes the first
# time, see e2e/kubelet/build.sh), starts containerd on its own socket and
# root, imports busybox-static as the only image, starts a standalone kubelet
# (static Pods from a folder, no API server) on 127.0.0.1:10750, runs the
# scenarios of e2e/kubelet with several Pods at once, writes the table, and
# tears everything down: processes, mounts, the bridge pl-e2e0, cgroups and
# STATE (installed packages stay). It refuses to start when its socket,
# ports, bridge or folders are taken. About 4 minutes for one run once the
# tools are built. Not part of .ci/run: it needs root and minutes.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${CACHE:-/var/cache/podlint-e2e}
state=${STATE:-/var/lib/podlint-e2e}
kube=${KUBE_VERSION:-v1.37.2}
port=10750
healthz=10748
bridge=pl-e2e0
subnet=10.237.0.0/24
sock=$state/containerd/containerd.sock
bin=$cache/bin

die() { echo "e2e-kubelet: $*" >&2; exit 1; }
log() { echo "e2e-kubelet: $(date -u +%H:%M:%S) $*" >&2; }

[[ $(id -u) == 0 ]] || die "needs root (it starts containerd and a kubelet)"
command -v go >/dev/null || die "needs Go (the version in go.mod) on PATH"

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
	ip link del "$bridge" 2>/dev/null
	# The kubelet's cgroups (cgroupfs driver): kubepods under each hierarchy.
	for d in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods /sys/fs/cgroup/*/podlint-e2e /sys/fs/cgroup/podlint-e2e; do
		[[ -d $d ]] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	rm -rf "$state"
	log "done"
}

if [[ -n ${TEARDOWN:-} ]]; then
	pids=($(pgrep -f "$bin/kubelet --config=$state/" || true) $(pgrep -f "containerd --config $state/" || true))
	teardown
	exit 0
fi

# Refuse to start on top of something.
[[ -e $state ]] && die "$state exists: another run is going on, or one did not tear down (TEARDOWN=1 $0 removes it)"
ip link show "$bridge" >/dev/null 2>&1 && die "network interface $bridge exists (another run?)"
for p in $port $healthz; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then die "port $p on 127.0.0.1 is taken"; fi
done
if ip -4 route show | grep -q "^${subnet%/*}"; then die "subnet $subnet is routed here already"; fi

# Packages (they stay installed).
need=()
for pkgbin in containerd:/usr/bin/containerd runc:/usr/sbin/runc busybox-static:/bin/busybox \
	containernetworking-plugins:/usr/lib/cni/bridge iproute2:/usr/sbin/ip; do
	[[ -x ${pkgbin#*:} ]] || need+=("${pkgbin%%:*}")
done
if ! dpkg -s busybox-static >/dev/null 2>&1; then need+=(busybox-static); fi
if ((${#need[@]})); then
	log "installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
fi

log "building the kubelet $kube and crictl into $bin (reused)"
CACHE=$cache KUBE_VERSION=$kube "$repo/e2e/kubelet/build.sh"
log "building podlint and the harness"
(cd "$repo" && go build -o "$cache/bin/podlint" ./cmd/podlint)
(cd "$repo/e2e/kubelet" && go build -o "$cache/bin/e2e-kubelet" .)

trap teardown EXIT
mkdir -p "$state"/{containerd/root,containerd/state,cni/net.d,cni/ipam,kubelet,manifests,obs,logs,image}

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
# A private bridge without masquerade: Pods reach each other and the host.
cat >"$state/cni/net.d/10-podlint-e2e.conflist" <<JSON
{"cniVersion": "1.0.0", "name": "podlint-e2e", "plugins": [
  {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$subnet"}]], "dataDir": "$state/cni/ipam"}},
  {"type": "loopback"}]}
JSON

log "starting containerd"
containerd --config "$state/containerd/config.toml" >"$state/logs/containerd.log" 2>&1 &
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
"$bin/kubelet" --config="$state/kubelet/config.yaml" --root-dir="$state/kubelet/root" \
	--cert-dir="$state/kubelet/pki" \
	--hostname-override=podlint-e2e --v=4 >"$state/logs/kubelet.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
	curl -fsS "http://127.0.0.1:$healthz/healthz" >/dev/null 2>&1 && break
	kill -0 "${pids[-1]}" 2>/dev/null || die "the kubelet exited; see $state/logs/kubelet.log: $(tail -3 "$state/logs/kubelet.log")"
	sleep 0.2
done
curl -fsS "http://127.0.0.1:$healthz/healthz" >/dev/null || die "the kubelet is not healthy after 60 s; see $state/logs/kubelet.log"

ctr --address "$sock" -n k8s.io events >"$state/logs/events.log" 2>&1 &
pids+=($!)

log "running the scenarios"
set +e
"$cache/bin/e2e-kubelet" run -state "$state" -podlint "$cache/bin/podlint" -kubelet "https://127.0.0.1:$port" \
	-kubelet-log "$state/logs/kubelet.log" -events "$state/logs/events.log" -kube-version "$kube" \
	-runs "${RUNS:-1}" -only "${ONLY:-}" -doc "${DOC-$repo/docs/validation.md}"
rc=$?
set -e
if [[ -n ${KEEP:-} ]]; then
	trap - EXIT
	log "KEEP: left running; TEARDOWN=1 $0 removes it"
fi
exit $rc
