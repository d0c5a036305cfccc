package main

import (
	"context"
	"time"

	"github.com/podlint/podlint/internal/cli"
	"github.com/podlint/podlint/internal/observe"
	"github.com/podlint/podlint/timeline"
)

// observer is internal/observe as internal/cli calls it (cli.Observer):
// podlint links it, podlint-render, which links internal/cli, does not.
type observer struct{}

func (observer) Observe(ctx context.Context, r cli.ObserveRequest) ([]byte, string, error) {
	return observe.Run(ctx, observe.Request{From: r.From, Context: r.Context, Namespace: r.Namespace, All: r.All,
		Watch: r.Watch, Timeout: r.Timeout, Previous: r.Previous, PreviousName: r.PreviousName, Now: time.Now})
}

func (observer) Expectations(data []byte, name string, now time.Time) (*timeline.Observed, error) {
	return observe.Expectations(data, name, now)
}
