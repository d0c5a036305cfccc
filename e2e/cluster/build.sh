#!/usr/bin/env bash
# Builds what the cluster harness needs besides the kubelet harness's tools
# into CACHE/cluster (default /var/cache/podlint-e2e/cluster), reused on
# later runs:
#   bin/kube-apiserver, bin/kube-controller-manager, bin/kube-scheduler
#       from the same prepared copy of k8s.io/kubernetes@KUBE_VERSION as the
#       kubelet (e2e/kubelet/build.sh prepares it and builds the kubelet,
#       which this reuses), with the same flags (-trimpath, module mode,
#       version ldflags), so that the packages the kubelet already compiled
#       are build-cache hits: the three link in one `go build`.
#   bin/etcd  go.etcd.io/etcd/server/v3@ETCD_VERSION, the version the
#       kubernetes go.mod requires. Its own go.mod has replace lines, so
#       `go install pkg@version` refuses it; it is built as a dependency of a
#       scratch module instead.
# About 4 minutes for the three and 1.5 for etcd on 2 cores once the
# kubelet's packages are cached. Runs at niceness NICE (default 10).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${CACHE:-/var/cache/podlint-e2e}
kube=${KUBE_VERSION:-v1.37.2}
etcd_version=${ETCD_VERSION:-v3.7.0}
nice=${NICE:-10}
out=$cache/cluster/bin
mkdir -p "$out"

# The kubelet, crictl and the prepared source (each built only once).
CACHE=$cache KUBE_VERSION=$kube NICE=$nice "$here/../kubelet/build.sh"
# shellcheck source=e2e/kubelet/ldflags.sh
. "$here/../kubelet/ldflags.sh"

src=$cache/src/kubernetes-$kube
stamp="$kube version-ldflags"
bins=(kube-apiserver kube-controller-manager kube-scheduler)
stale=
for b in "${bins[@]}"; do
	[[ -x $out/$b && $(cat "$out/$b.version" 2>/dev/null) == "$stamp" ]] || stale=1
done
if [[ -n $stale ]]; then
	ldflags=$(kube_ldflags "$src" "$kube")
	(cd "$src" && GOWORK=off GOFLAGS=-mod=mod nice -n "$nice" go build -trimpath -ldflags "$ldflags" -o "$out/" \
		"${bins[@]/#/./cmd/}")
	for b in "${bins[@]}"; do
		"$out/$b" --version | grep -qxF "Kubernetes $kube" || {
			echo "build.sh: $b reports $("$out/$b" --version), not Kubernetes $kube" >&2
			exit 1
		}
		echo "$stamp" >"$out/$b.version"
	done
fi

if [[ ! -x $out/etcd || $(cat "$out/etcd.version" 2>/dev/null) != "$etcd_version" ]]; then
	mod=$cache/cluster/etcd-build
	rm -rf "$mod"
	mkdir -p "$mod"
	cat >"$mod/go.mod" <<MOD
module podlint.local/etcd-build

go 1.26.0

require go.etcd.io/etcd/server/v3 $etcd_version
MOD
	# A blank import keeps `go mod tidy` from dropping the requirement.
	printf 'package tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >"$mod/tools.go"
	(cd "$mod" && GOWORK=off GOFLAGS=-mod=mod go mod tidy &&
		GOWORK=off GOFLAGS=-mod=mod nice -n "$nice" go build -trimpath -o "$out/etcd" go.etcd.io/etcd/server/v3)
	"$out/etcd" --version | grep -q "etcd Version: ${etcd_version#v}" || {
		echo "build.sh: etcd reports $("$out/etcd" --version), not $etcd_version" >&2
		exit 1
	}
	echo "$etcd_version" >"$out/etcd.version"
fi
