#!/usr/bin/env bash
# Checks podlint's controller numbers (Job back-off, rollouts, StatefulSet
# ordering, DaemonSet and CronJob timing, evictions under a
# PodDisruptionBudget) against a real one-node control plane built from
# source, and writes the controller table of docs/validation.md (see "The
# controllers on a one-node cluster" there).
#
#   sudo scripts/e2e-cluster.sh          # as root, on Debian 12 or later
#   env: CACHE=/var/cache/podlint-e2e (builds, reused; the control plane in CACHE/cluster)
#        STATE=/var/lib/podlint-e2e-cluster (etcd, containerd, kubelet, certificates; removed at the end)
#        KUBE_VERSION=v1.37.2  ETCD_VERSION=v3.7.0  RUNS=1 (runs of every scenario)
#        ONLY=regexp (scenarios to run)  BATCH=5 (at most 5 scenarios at once; 0: all of a run)
#        DOC=docs/validation.md (empty: print the table)
#        KEEP=1 (leave the cluster running after the scenarios, print its
#        kubeconfigs; TEARDOWN=1 removes it)  SCENARIOS=0 (with KEEP=1: bring
#        the cluster up and run nothing, for the tests that need an API server)
#        STACK_NICE=-10 (as scripts/e2e-kubelet.sh)
# The recordings of each run (what the watches saw, one JSON file per
# scenario and run) are kept in CACHE/cluster/obs/TIME.
#
# From nothing it installs containerd, runc, busybox-static and the CNI
# plugins (apt-get), builds etcd and kube-apiserver, kube-controller-manager
# and kube-scheduler into CACHE/cluster (e2e/cluster/build.sh, reusing the
# prepared kubernetes source and the kubelet of e2e/kubelet/build.sh), and
# then, in a private network namespace (the node's address 10.237.1.1 on a
# veth pair whose ends both stay in it): generates a CA and every
# certificate (Go's crypto, fresh each run), starts containerd, etcd
# (127.0.0.1:2379), the apiserver (10.237.1.1:6443, Node and RBAC
# authorization, service-account issuer and keys), the controller-manager
# (--root-ca-file, without which no Pod gets its kube-root-ca.crt ConfigMap
# and all stay ContainerCreating), the scheduler and a kubelet registered
# with a system:node client certificate; binds the read-only ClusterRole
# podlint-observer to a second user; runs the scenarios of e2e/cluster,
# BATCH at a time in namespaces of their own; writes the table; and tears down:
# kubelet, scheduler and controller-manager before the apiserver (which
# otherwise waits 60 s for its clients), then etcd and containerd. The
# host's sysctls, netfilter tables, links, routes, mounts, cgroups,
# processes and folders are recorded before and compared after: a
# difference fails the run (exit 3). The CNI bridge has no isGateway (the
# script gives it its address): nothing sets a sysctl, even in the
# namespace.
#
# Only one e2e run at a time: this script and scripts/e2e-kubelet.sh take
# /var/lock/podlint-e2e.lock and refuse to start while another run (or a
# stack kept with KEEP=1) holds it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${CACHE:-/var/cache/podlint-e2e}
state=${STATE:-/var/lib/podlint-e2e-cluster}
kube=${KUBE_VERSION:-v1.37.2}
bridge=pl-e2e0
subnet=10.237.0.0/24
bridge_ip=10.237.0.1
node_if=pl-e2e-n
node_ip=10.237.1.1
service_range=10.238.0.0/24
service_ip=10.238.0.1
node=podlint-e2e
sock=$state/containerd/containerd.sock
cbin=$cache/cluster/bin
name=e2e-cluster
# shellcheck source=scripts/e2e-stack.sh
. "$repo/scripts/e2e-stack.sh"

[[ $(id -u) == 0 ]] || die "needs root (it starts containerd, a kubelet and a control plane)"
command -v go >/dev/null || die "needs Go (the version in go.mod) on PATH"

# The kubelet, scheduler and controller-manager go before the apiserver,
# which otherwise waits 60 s for its connected clients; etcd after it.
# pids is in start order and teardown stops it backwards, so the order
# below is the start order: holder, containerd, etcd, apiserver,
# controller-manager, scheduler, kubelet.
daemons() {
	local p
	for p in "containerd --config $state/" "$cbin/etcd --name $node" "$cbin/kube-apiserver --advertise-address" \
		"$cbin/kube-controller-manager --kubeconfig=$state/" "$cbin/kube-scheduler --kubeconfig=$state/" "$cache/bin/kubelet --config=$state/"; do
		pgrep -f "^$p" || true
	done
}

# What was started after the apiserver (the harness, the kubelet, the
# scheduler, the controller-manager) stops first, then the Pods go through
# the runtime (the kubelet would start them again), then the rest.
api=
stop_first() {
	[[ -n $api ]] || return 0
	local i
	for ((i = ${#pids[@]} - 1; i > api; i--)); do
		kill "${pids[i]}" 2>/dev/null
		for _ in $(seq 100); do kill -0 "${pids[i]}" 2>/dev/null || break; sleep 0.1; done
		kill -9 "${pids[i]}" 2>/dev/null
		unset 'pids[i]'
	done
}

if [[ -n ${TEARDOWN:-} ]]; then
	holder=$(cat "$state/netns.pid" 2>/dev/null || true)
	# shellcheck disable=SC2207
	pids=($holder $(daemons))
	for i in "${!pids[@]}"; do
		[[ $(ps -o args= -p "${pids[i]}" 2>/dev/null) == "$cbin/kube-apiserver "* ]] && api=$i
	done
	teardown
	exit
fi

# Refuse to start on top of another run, then build etcd and the control
# plane (reused).
stack_start "$repo/e2e/cluster/build.sh"
(cd "$repo/e2e/cluster" && go build -o "$cbin/e2e-cluster" .)

stack_record_host
trap finish EXIT
mkdir -p "$state"/{containerd/root,containerd/state,cni/net.d,cni/ipam,kubelet,etcd,pki,logs,image}
up=$SECONDS
stack_netns "$node_if" "$node_ip"

# The Pods' bridge, made here with its address so that the kubelet reaches
# the Pods (HTTP probes) without the CNI plugin's isGateway, which would
# also set ip_forward.
inns ip link add "$bridge" type bridge
inns ip addr add "$bridge_ip/24" dev "$bridge"
inns ip link set "$bridge" up
cat >"$state/cni/net.d/10-podlint-e2e.conflist" <<JSON
{"cniVersion": "1.0.0", "name": "podlint-e2e", "plugins": [
  {"type": "bridge", "bridge": "$bridge", "isGateway": false, "ipMasq": false,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$subnet", "rangeStart": "10.237.0.10"}]], "dataDir": "$state/cni/ipam"}},
  {"type": "loopback"}]}
JSON
stack_containerd

"$cbin/e2e-cluster" certs -dir "$state/pki" -ip "$node_ip" -node "$node" -service-ip "$service_ip"
pki=$state/pki

log "starting etcd"
"${prio[@]}" nsenter -t "$holder" -n -- "$cbin/etcd" --name "$node" --data-dir "$state/etcd" \
	--listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
	--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
	--initial-cluster "$node=http://127.0.0.1:2380" >"$state/logs/etcd.log" 2>&1 &
pids+=($!)

log "starting the apiserver"
"${prio[@]}" nsenter -t "$holder" -n -- "$cbin/kube-apiserver" --advertise-address="$node_ip" --bind-address="$node_ip" \
	--secure-port=6443 --etcd-servers=http://127.0.0.1:2379 \
	--tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" --client-ca-file="$pki/ca.crt" \
	--service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$pki/sa.pub" \
	--service-account-signing-key-file="$pki/sa.key" --service-cluster-ip-range="$service_range" \
	--authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
	--kubelet-preferred-address-types=InternalIP --kubelet-certificate-authority="$pki/ca.crt" \
	--kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
	--profiling=false --cert-dir="$state/pki/apiserver-certs" >"$state/logs/apiserver.log" 2>&1 &
pids+=($!)
api=$((${#pids[@]} - 1))
inns "$cbin/e2e-cluster" wait -kubeconfig "$pki/admin.kubeconfig" -for apiserver -pid "${pids[-1]}" ||
	die "the apiserver did not come up; see $state/logs/apiserver.log: $(tail -3 "$state/logs/apiserver.log")"

log "starting the controller-manager and the scheduler"
"${prio[@]}" nsenter -t "$holder" -n -- "$cbin/kube-controller-manager" --kubeconfig="$pki/controller-manager.kubeconfig" \
	--authentication-kubeconfig="$pki/controller-manager.kubeconfig" --authorization-kubeconfig="$pki/controller-manager.kubeconfig" \
	--root-ca-file="$pki/ca.crt" --service-account-private-key-file="$pki/sa.key" --use-service-account-credentials=true \
	--service-cluster-ip-range="$service_range" --bind-address=127.0.0.1 --profiling=false \
	--cluster-signing-cert-file="$pki/ca.crt" --cluster-signing-key-file="$pki/ca.key" >"$state/logs/controller-manager.log" 2>&1 &
pids+=($!)
"${prio[@]}" nsenter -t "$holder" -n -- "$cbin/kube-scheduler" --kubeconfig="$pki/scheduler.kubeconfig" \
	--authentication-kubeconfig="$pki/scheduler.kubeconfig" --authorization-kubeconfig="$pki/scheduler.kubeconfig" \
	--bind-address=127.0.0.1 --profiling=false >"$state/logs/scheduler.log" 2>&1 &
pids+=($!)

cat >"$state/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $node_ip
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
containerRuntimeEndpoint: unix://$sock
podLogsDir: $state/logs/pods
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
makeIPTablesUtilChains: false
tlsCertFile: $pki/kubelet-serving.crt
tlsPrivateKeyFile: $pki/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: AlwaysAllow}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "1Mi", nodefs.available: "1%", imagefs.available: "1%"}
YAML

log "starting the kubelet"
"${prio[@]}" nsenter -t "$holder" -n -- "$cache/bin/kubelet" --config="$state/kubelet/config.yaml" --root-dir="$state/kubelet/root" \
	--kubeconfig="$pki/kubelet.kubeconfig" --cert-dir="$state/kubelet/pki" --node-ip="$node_ip" \
	--hostname-override="$node" --v=2 >"$state/logs/kubelet.log" 2>&1 &
pids+=($!)
inns "$cbin/e2e-cluster" wait -kubeconfig "$pki/admin.kubeconfig" -for node -node "$node" -pid "${pids[-1]}" ||
	die "the node did not turn Ready; see $state/logs/kubelet.log: $(tail -3 "$state/logs/kubelet.log")"
stack_weigh_pods
inns "$cbin/e2e-cluster" setup -kubeconfig "$pki/admin.kubeconfig" -observer "$pki/observer.kubeconfig"
log "cluster ready after $((SECONDS - up)) s"

rc=0
if [[ ${SCENARIOS:-1} != 0 ]]; then
	# The recordings (one JSON file per scenario and run) stay in the
	# cache, beside the builds: the table can be recomputed from them.
	obs=$cache/cluster/obs/$(date -u +%Y%m%dT%H%M%SZ)
	log "running the scenarios; recordings in $obs"
	set +e
	"${prio[@]}" nsenter -t "$holder" -n -- "$cbin/e2e-cluster" run -kubeconfig "$pki/admin.kubeconfig" -podlint "$cache/bin/podlint" \
		-obs "$obs" -kube-version "$kube" -runs "${RUNS:-1}" -batch "${BATCH:-5}" -only "${ONLY:-}" -doc "${DOC-$repo/docs/validation.md}" &
	# Waited for in the background: an interrupt then ends the wait at once.
	pids+=($!)
	wait $!
	rc=$?
	unset 'pids[-1]'
	set -e
fi
if [[ -n ${KEEP:-} ]]; then
	trap - EXIT
	log "KEEP: the cluster is left running; TEARDOWN=1 $0 removes it. The API server is at https://$node_ip:6443 inside the network namespace of process $holder:"
	log "  admin:    nsenter -t $holder -n -- CMD with KUBECONFIG=$pki/admin.kubeconfig"
	log "  observer: nsenter -t $holder -n -- CMD with KUBECONFIG=$pki/observer.kubeconfig (get/list/watch only)"
fi
exit $rc
