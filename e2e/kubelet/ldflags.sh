# Sourced by e2e/kubelet/build.sh and e2e/cluster/build.sh: every binary
# built from the prepared kubernetes source gets the same link flags.
#
# kube_ldflags SRC VERSION prints the version flags as hack/lib/version.sh
# stamps them (kube::version::ldflags): without them a binary reports
# v0.0.0-master. The module zip has no git metadata, so no gitCommit, and the
# tree state is "archive" (what version.sh says of a source tarball); the
# build date is when the source was prepared, so that the flags, and the
# links, are the same on every build. Only the link depends on them.
kube_ldflags() {
	local src=$1 kube=$2 minor build_date pkg flags=()
	minor=${kube#v1.}
	minor=${minor%%.*}
	build_date=$(date -u -d "@$(stat -c %Y "$src/.prepared")" +%Y-%m-%dT%H:%M:%SZ)
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		flags+=("-X $pkg.gitVersion=$kube" "-X $pkg.gitMajor=1" "-X $pkg.gitMinor=$minor"
			"-X $pkg.gitTreeState=archive" "-X $pkg.buildDate=$build_date")
	done
	echo "${flags[*]}"
}
