package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"time"

	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/timeline"
	ucli "github.com/urfave/cli/v2"
)

// Observer is podlint observe's work and the reading of its profiles for
// check --observed. It is internal/observe's, which internal/observecli
// hands to SetObserver for cmd/podlint: internal/cli does not import it,
// so that podlint-render, which links internal/cli, links no cluster
// client of podlint's (deps.Unlinked).
type Observer interface {
	// Observe makes a profile: its bytes and a one-line summary.
	Observe(ctx context.Context, req ObserveRequest) (profile []byte, summary string, err error)
	// Expectations reads a profile into what the model uses; now is
	// when the profile is judged stale.
	Expectations(data []byte, name string, now time.Time) (*timeline.Observed, error)
}

// ObserveRequest is what the observe command's flags ask.
type ObserveRequest struct {
	From               []string
	Context, Namespace string
	All                bool
	Watch, Timeout     time.Duration
	// Previous is the profile at --output, merged into; nil for none.
	Previous     []byte
	PreviousName string
}

var observer Observer

// now is the clock that judges a profile stale; tests set it.
var now = time.Now

// SetObserver installs podlint observe; without it (podlint-render, tests
// that do not need it) the command says it is not built in.
func SetObserver(o Observer) { observer = o }

func observeCommand(env *runEnv) *ucli.Command {
	return &ucli.Command{
		Name:  "observe",
		Usage: "record the start-ups, probe kills and shutdowns a cluster saw, for check --observed",
		Description: `Reads Pods, events, ReplicaSets and Jobs, read-only, and writes a profile per
workload (namespace/Kind/name) and container: start-up times (Pod Ready minus
the latest container start), init container run times, start-ups a probe cut
short, restarts by cause and shutdowns. A snapshot lists what exists now;
--watch DURATION also records while it runs, the only way to see shutdowns and
rollouts. The profile at --output is merged into (its recordings add up)
unless --fresh. With --from, it reads files holding the output of
  kubectl get pods,events,replicasets,jobs -A -o json
and needs no cluster access. See docs/observe.md for the schema and the
ClusterRole podlint observe needs. Exit status: 0 when the profile was
written, 2 on a usage, cluster or I/O error.`,
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "from", Usage: "read the JSON `FILE` kubectl get pods,events,replicasets,jobs -A -o json printed instead of a cluster (repeat for more)"},
			&ucli.StringFlag{Name: "context", Usage: "kubeconfig `CONTEXT` to read (default: the current context)"},
			&ucli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: "read only `NAMESPACE` (default: the context's)"},
			&ucli.BoolFlag{Name: "all-namespaces", Aliases: []string{"A"}, Usage: "read every namespace", DisableDefaultText: true},
			&ucli.DurationFlag{Name: "watch", Usage: "after the snapshot, record for `DURATION` (10m, 2h)", DefaultText: "no watch"},
			&ucli.DurationFlag{Name: "timeout", Usage: "give up listing after `DURATION`", Value: time.Minute, DefaultText: "1m"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the profile to `FILE`, merging into it if it is one (- for standard output)", Value: "-", DefaultText: "standard output"},
			&ucli.BoolFlag{Name: "fresh", Usage: "replace the profile at --output instead of merging into it", DisableDefaultText: true},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return &exitError{ExitError, fmt.Sprintf("observe takes no PATH (got %s); --from names files", textsafe.Quote(c.Args().First()))}
			}
			if observer == nil {
				return &exitError{ExitError, "observe is not built into this executable; run podlint observe"}
			}
			req := ObserveRequest{From: c.StringSlice("from"), Context: c.String("context"), Namespace: c.String("namespace"),
				All: c.Bool("all-namespaces"), Watch: c.Duration("watch"), Timeout: c.Duration("timeout")}
			if len(req.From) > 0 && (req.Context != "" || req.Namespace != "" || req.All || req.Watch != 0) {
				return &exitError{ExitError, "--from reads files: --context, --namespace, --all-namespaces and --watch are for a live cluster"}
			}
			if req.Namespace != "" && req.All {
				return &exitError{ExitError, "--namespace and --all-namespaces contradict each other"}
			}
			if req.Watch < 0 || req.Timeout <= 0 {
				return &exitError{ExitError, "--watch and --timeout take a positive duration (10m)"}
			}
			out := c.String("output")
			if out != "-" && !c.Bool("fresh") {
				prev, err := readPrevious(out)
				if err != nil {
					return &exitError{ExitError, fmt.Sprintf("--output %s: %v", textsafe.Quote(out), err)}
				}
				req.Previous, req.PreviousName = prev, out
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			profile, summary, err := observer.Observe(ctx, req)
			if err != nil {
				return &exitError{ExitError, err.Error()}
			}
			if out == "-" {
				_, err := env.stdout.Write(profile)
				return err
			}
			o, err := createOutput(out, "--output", nil)
			if err != nil {
				return err
			}
			_, werr := o.w.Write(profile)
			if err := o.finish(werr); err != nil {
				return &exitError{ExitError, fmt.Sprintf("--output %s: %v", textsafe.Quote(out), settings.UnwrapPathErr(err))}
			}
			env.warnf("wrote %s: %s", out, summary)
			return nil
		},
	}
}

// readPrevious reads the profile at path to merge into: nil when there is
// none. It reads a regular file only, as much as a profile may hold.
func readPrevious(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, settings.UnwrapPathErr(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return settings.ReadProfile(path)
}
