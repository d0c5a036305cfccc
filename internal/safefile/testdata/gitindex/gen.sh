#!/bin/sh
# Writes the git indexes TestDecodeIndexOfGit reads, with the git on PATH
# (these were written by git 2.39.5). Each repository tracks the same
# files (files.txt); what differs is how git writes its index.
set -eu
out=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk() { # name, git init flags, git config before adding
	name=$1 init=$2 cfg=$3
	d="$tmp/$name"
	git init -q $init "$d"
	cd "$d"
	for kv in $cfg; do git config "${kv%%=*}" "${kv#*=}"; done
	mkdir -p chart/templates 'odd dir' deep/a/b/c/d/e
	printf 'apiVersion: v2\nname: x\nversion: 1.0.0\n' >chart/Chart.yaml
	echo 'kind: Deployment' >chart/templates/deployment.yaml
	echo x >'odd dir/ünï code.yaml'
	echo y >deep/a/b/c/d/e/f.yaml
	ln -s chart/Chart.yaml link.yaml
	echo new >intent.yaml
	git add chart 'odd dir' deep link.yaml
	[ "$name" = v2 ] || git add -N intent.yaml # intent-to-add: an extended flag, which makes git write v3
	git -c protocol.file.allow=always update-index --add --cacheinfo 160000,0123456789012345678901234567890123456789,sub 2>/dev/null ||
		git update-index --add --cacheinfo 160000,0123456789012345678901234567890123456789012345678901234567890123,sub
	cd - >/dev/null
	cp "$d/.git/index" "$out/$name.index"
}
mk v2 "" "index.version=2"
mk v3 "" "index.version=3"
mk v4 "" "index.version=4"
mk sha256 "--object-format=sha256" "index.version=2"
mk split "" "core.splitIndex=true"
