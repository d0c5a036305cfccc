// Package observecli installs podlint observe (internal/observe) into the
// command line (internal/cli), which does not import it so that
// podlint-render, which links internal/cli, never links it.
//
// Like every package of podlint, it makes no API promise.
package observecli

import (
	"context"
	"time"

	"github.com/podlint/podlint/internal/cli"
	"github.com/podlint/podlint/internal/observe"
	"github.com/podlint/podlint/timeline"
)

// Install makes internal/observe podlint's observe command and the reader
// of check --observed; a live cluster is read by podlint-observe
// (observe.ChildLive), which podlint starts beside itself.
func Install() { InstallLive(observe.ChildLive) }

// InstallLive is Install with live reading the cluster: kubeconfig.Live in
// the tests that read a fake API server in-process.
func InstallLive(live func(context.Context, observe.Request) (*observe.Profile, error)) {
	cli.SetObserver(observer{live})
}

// observer is internal/observe as internal/cli calls it (cli.Observer).
type observer struct {
	live func(context.Context, observe.Request) (*observe.Profile, error)
}

func (o observer) Observe(ctx context.Context, r cli.ObserveRequest) ([]byte, string, error) {
	return observe.Run(ctx, observe.Request{From: r.From, Context: r.Context, Namespace: r.Namespace, All: r.All,
		Watch: r.Watch, Timeout: r.Timeout, Previous: r.Previous, PreviousName: r.PreviousName, Now: time.Now, Live: o.live})
}

func (observer) Expectations(data []byte, name string, now time.Time) (*timeline.Observed, error) {
	return observe.Expectations(data, name, now)
}
