#!/usr/bin/env bash
# Builds the tools the kubelet harness needs into CACHE (default
# /var/cache/podlint-e2e) and reuses them on later runs:
#   CACHE/bin/kubelet   k8s.io/kubernetes@KUBE_VERSION, ./cmd/kubelet
#   CACHE/bin/crictl    sigs.k8s.io/cri-tools@CRICTL_VERSION
# The kubernetes module zip from the Go proxy lacks the staging modules (they
# are separate modules), so its replace lines are pointed at the published
# k8s.io/* v0.<minor>.<patch> modules. One guarded patch: the kubelet writes
# host sysctls (vm.overcommit_memory, kernel.panic, ...) at start; the copy
# built here only logs what it would have changed, so a run leaves the
# machine as it was. About 7 CPU-minutes the first time.
set -euo pipefail
cache=${CACHE:-/var/cache/podlint-e2e}
kube=${KUBE_VERSION:-v1.37.2}
crictl_version=${CRICTL_VERSION:-v1.37.0}
mkdir -p "$cache/bin"

if [[ ! -x $cache/bin/kubelet || $(cat "$cache/bin/kubelet.version" 2>/dev/null) != "$kube" ]]; then
	src=$cache/src/kubernetes-$kube
	if [[ ! -f $src/.prepared ]]; then
		rm -rf "$src"
		dir=$(cd /tmp && go mod download -json "k8s.io/kubernetes@$kube" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
		[[ -d $dir ]] || { echo "build.sh: go mod download k8s.io/kubernetes@$kube gave no folder" >&2; exit 1; }
		mkdir -p "$(dirname "$src")"
		cp -r "$dir" "$src"
		chmod -R u+w "$src"
		staging=v0.${kube#v1.}
		# ./staging/src/k8s.io/NAME -> k8s.io/NAME v0.M.P
		sed -i -E "s#^(\s+k8s\.io/[a-z0-9-]+) => \./staging/src/(k8s\.io/[a-z0-9-]+)\$#\1 => \2 $staging#" "$src/go.mod"
		if grep -q '=> ./staging' "$src/go.mod"; then
			echo "build.sh: some replace lines still point at ./staging" >&2
			exit 1
		fi
		f=$src/pkg/kubelet/cm/container_manager_linux.go
		want='			err = sysctl.SetSysctl(flag, expectedValue)'
		if [[ $(grep -cxF "$want" "$f") != 1 ]]; then
			echo "build.sh: the sysctl write in $f changed; review the patch" >&2
			exit 1
		fi
		sed -i "s#^$want\$#			err = nil // podlint e2e: the host's sysctls are left alone\n			logger.Info(\"podlint e2e: not changing host sysctl\", \"flag\", flag, \"expectedValue\", expectedValue, \"actualValue\", val)#" "$f"
		touch "$src/.prepared"
	fi
	(cd "$src" && GOWORK=off GOFLAGS=-mod=mod nice -n 19 go build -trimpath -o "$cache/bin/kubelet" ./cmd/kubelet)
	echo "$kube" >"$cache/bin/kubelet.version"
fi

if [[ ! -x $cache/bin/crictl || $(cat "$cache/bin/crictl.version" 2>/dev/null) != "$crictl_version" ]]; then
	GOBIN=$cache/bin nice -n 19 go install "sigs.k8s.io/cri-tools/cmd/crictl@$crictl_version"
	echo "$crictl_version" >"$cache/bin/crictl.version"
fi
