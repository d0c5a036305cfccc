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
# machine as it was. About 7 CPU-minutes the first time; 35 minutes of wall
# clock on 2 shared cores under load. Runs at niceness NICE (default 10,
# added to the caller's). Besides CACHE it fills Go's module and build
# caches (`go env GOMODCACHE GOCACHE`) with about 3 GB, which stay.
set -euo pipefail
cache=${CACHE:-/var/cache/podlint-e2e}
kube=${KUBE_VERSION:-v1.37.2}
crictl_version=${CRICTL_VERSION:-v1.37.0}
# Low priority: the machines this runs on are shared with people compiling.
nice=${NICE:-10}
mkdir -p "$cache/bin"
# shellcheck source=e2e/kubelet/ldflags.sh
. "$(dirname "$0")/ldflags.sh"

# The stamp names the build's inputs besides the source: a kubelet built by
# an older build.sh (without version flags) is relinked.
stamp="$kube version-ldflags"
if [[ ! -x $cache/bin/kubelet || $(cat "$cache/bin/kubelet.version" 2>/dev/null) != "$stamp" ]]; then
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
	ldflags=$(kube_ldflags "$src" "$kube")
	(cd "$src" && GOWORK=off GOFLAGS=-mod=mod nice -n "$nice" go build -trimpath -ldflags "$ldflags" -o "$cache/bin/kubelet" ./cmd/kubelet)
	"$cache/bin/kubelet" --version | grep -qxF "Kubernetes $kube" || {
		echo "build.sh: the kubelet built reports $("$cache/bin/kubelet" --version), not Kubernetes $kube" >&2
		exit 1
	}
	echo "$stamp" >"$cache/bin/kubelet.version"
fi

if [[ ! -x $cache/bin/crictl || $(cat "$cache/bin/crictl.version" 2>/dev/null) != "$crictl_version" ]]; then
	GOBIN=$cache/bin nice -n "$nice" go install "sigs.k8s.io/cri-tools/cmd/crictl@$crictl_version"
	echo "$crictl_version" >"$cache/bin/crictl.version"
fi
