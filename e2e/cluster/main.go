// Command e2e-cluster checks podlint's controller numbers against a real
// one-node cluster. scripts/e2e-cluster.sh builds and starts the control
// plane and runs it; docs/validation.md explains the method and holds the
// results.
//
//	e2e-cluster certs -dir DIR -ip IP -node NAME -service-ip IP
//	e2e-cluster wait -kubeconfig FILE -for apiserver|node [-node NAME] [-pid PID]
//	e2e-cluster setup -kubeconfig FILE -observer FILE
//	e2e-cluster run -kubeconfig FILE -podlint BIN [-obs DIR] [-runs N] [-batch N] [-only RE] [-doc FILE]
//	e2e-cluster run -from DIR [-took 2m15s,…] -podlint BIN [-only RE] [-doc FILE]  (the table again from recordings)
//	e2e-cluster predict -podlint BIN
//	e2e-cluster observe -kubeconfig FILE -observer FILE -podlint BIN -out DIR [-watch 80s]  (podlint observe end to end)
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: e2e-cluster certs|wait|setup|run|predict|observe [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "the admin's kubeconfig")
	var err error
	switch os.Args[1] {
	case "certs":
		dir := fs.String("dir", "pki", "folder to write the certificates, keys and kubeconfigs into")
		ip := fs.String("ip", "", "the node's and the apiserver's address")
		node := fs.String("node", "podlint-e2e", "the node's name")
		svc := fs.String("service-ip", "", "the kubernetes Service's cluster IP")
		_ = fs.Parse(os.Args[2:])
		err = writePKI(*dir, *ip, *node, *svc)
	case "wait":
		what := fs.String("for", "apiserver", "apiserver (healthy) or node (Ready)")
		node := fs.String("node", "podlint-e2e", "the node's name")
		pid := fs.Int("pid", 0, "give up when this process exits")
		_ = fs.Parse(os.Args[2:])
		err = waitFor(*kubeconfig, *what, *node, *pid)
	case "setup":
		observer := fs.String("observer", "", "the observer's kubeconfig, checked to be read-only")
		_ = fs.Parse(os.Args[2:])
		err = setup(*kubeconfig, *observer)
	case "run":
		var c config
		c.kubeconfig = kubeconfig
		fs.StringVar(&c.podlint, "podlint", "podlint", "podlint binary")
		fs.StringVar(&c.obs, "obs", "", "folder to save the recordings in (one JSON file per scenario and run)")
		fs.StringVar(&c.kubeVersion, "kube-version", "v1.37.2", "the cluster's version (for the table)")
		fs.IntVar(&c.runs, "runs", 1, "runs of every scenario")
		fs.IntVar(&c.batch, "batch", 0, "at most this many scenarios at once (0: all of a run at once); with -from, what the run used")
		only := fs.String("only", "", "regexp: scenarios to run")
		fs.StringVar(&c.doc, "doc", "", "write the table into this Markdown file (empty: standard output)")
		fs.StringVar(&c.from, "from", "", "recompute the table from the recordings in this folder (a run's -obs) instead of running")
		took := fs.String("took", "", "with -from: the run's durations, comma-separated (2m15s,2m43s)")
		_ = fs.Parse(os.Args[2:])
		for _, d := range strings.FieldsFunc(*took, func(r rune) bool { return r == ',' }) {
			v, perr := time.ParseDuration(d)
			if perr != nil {
				err = perr
			}
			c.took = append(c.took, v)
		}
		if *only != "" && err == nil {
			c.only, err = regexp.Compile(*only)
		}
		if err == nil {
			err = runAll(c)
		}
	case "observe":
		observer := fs.String("observer", "", "the kubeconfig of the user bound only to the observe ClusterRole")
		podlint := fs.String("podlint", "podlint", "podlint binary")
		out := fs.String("out", "", "folder for the manifest, the profiles, the lists and podlint's output")
		watch := fs.Duration("watch", 80*time.Second, "how long podlint observe watches")
		_ = fs.Parse(os.Args[2:])
		err = observeLive(*kubeconfig, *observer, *podlint, *out, *watch)
	case "predict":
		podlint := fs.String("podlint", "podlint", "podlint binary")
		_ = fs.Parse(os.Args[2:])
		err = printPredictions(*podlint)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-cluster:", err)
		os.Exit(1)
	}
}
