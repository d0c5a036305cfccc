// Command e2e-kubelet checks podlint's timeline against a real kubelet.
// scripts/e2e-kubelet.sh sets up containerd and a standalone kubelet and
// runs it; docs/validation.md explains the method and holds the results.
//
//	e2e-kubelet image -busybox /bin/busybox -out busybox.tar
//	e2e-kubelet predict -podlint BIN
//	e2e-kubelet run -state DIR -podlint BIN -kubelet URL -kubelet-log FILE -events FILE [-kubelet-healthy UNIXTIME] [-runs N] [-only RE] [-doc FILE]
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: e2e-kubelet image|run [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "image":
		fs := flag.NewFlagSet("image", flag.ExitOnError)
		bb := fs.String("busybox", "/bin/busybox", "a static busybox")
		out := fs.String("out", "busybox.tar", "OCI layout tarball to write")
		_ = fs.Parse(os.Args[2:])
		err = packImage(*bb, *out)
	case "run":
		fs := flag.NewFlagSet("run", flag.ExitOnError)
		var c config
		fs.StringVar(&c.state, "state", "/var/lib/podlint-e2e", "state folder (manifests/ and obs/ in it)")
		fs.StringVar(&c.podlint, "podlint", "podlint", "podlint binary")
		fs.StringVar(&c.kubelet, "kubelet", "https://127.0.0.1:10750", "the kubelet's server")
		fs.StringVar(&c.kubeletLog, "kubelet-log", "", "the kubelet's log (-v=4)")
		fs.StringVar(&c.events, "events", "", "output of ctr events")
		fs.StringVar(&c.kubeVersion, "kube-version", "v1.37.2", "the kubelet's version (for the table)")
		fs.IntVar(&c.runs, "runs", 1, "runs of every scenario")
		only := fs.String("only", "", "regexp: scenarios to run")
		fs.StringVar(&c.doc, "doc", "", "write the results table into this Markdown file (empty: standard output)")
		healthy := fs.Float64("kubelet-healthy", 0, "Unix time when the kubelet first answered /healthz (0: long enough ago)")
		_ = fs.Parse(os.Args[2:])
		if *healthy > 0 {
			c.healthy = time.Unix(0, int64(*healthy*1e9))
		}
		if *only != "" {
			c.only, err = regexp.Compile(*only)
		}
		if err == nil {
			err = runAll(c)
		}
	case "predict":
		// What podlint predicts for every check, without a kubelet.
		fs := flag.NewFlagSet("predict", flag.ExitOnError)
		podlint := fs.String("podlint", "podlint", "podlint binary")
		_ = fs.Parse(os.Args[2:])
		err = printPredictions(*podlint)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-kubelet:", err)
		os.Exit(1)
	}
}
