package observe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Request is one run of podlint observe.
type Request struct {
	// From are files holding kubectl get ... -o json output; when set,
	// no cluster is read.
	From []string
	// Context, Namespace and All choose what cluster and namespaces to
	// read (Connect).
	Context, Namespace string
	All                bool
	// Watch is how long to record after the snapshot (0 for a snapshot).
	Watch time.Duration
	// Timeout bounds the snapshot's lists, and the watch's end.
	Timeout time.Duration
	// Previous is the profile to merge into (nil for none); PreviousName
	// names it in messages.
	Previous     []byte
	PreviousName string
	// Now is the clock (time.Now).
	Now func() time.Time
	// Live records the live cluster the request names, when From is
	// empty: kubeconfig.Live, which links client-go, in podlint-observe
	// and in tests; ChildLive, which starts podlint-observe, in podlint.
	// It returns the recording alone; Run merges it into Previous.
	Live func(ctx context.Context, req Request) (*Profile, error)
}

// Run makes the profile of a request: the encoded profile and a one-line
// summary of what it holds.
func Run(ctx context.Context, req Request) ([]byte, string, error) {
	var prev *Profile
	if req.Previous != nil {
		p, err := Decode(req.Previous, req.PreviousName)
		if err != nil {
			return nil, "", fmt.Errorf("%v (merging into it; give --fresh to replace it)", err)
		}
		prev = p
	}
	var p *Profile
	if len(req.From) > 0 {
		b := NewBuilder()
		for _, name := range req.From {
			if err := readFile(name, b); err != nil {
				return nil, "", err
			}
		}
		p = b.Profile("", ModeSnapshot, time.Time{})
	} else {
		if req.Live == nil {
			return nil, "", errors.New("this executable does not read a live cluster (Request.Live is unset)")
		}
		var err error
		if p, err = req.Live(ctx, req); err != nil {
			return nil, "", err
		}
	}
	if prev != nil {
		if prev.Context != "" && p.Context != "" && prev.Context != p.Context {
			return nil, "", fmt.Errorf("%s was recorded from context %s, not %s: write to another file, or give --fresh", req.PreviousName, prev.Context, p.Context)
		}
		prev.Merge(p)
		p = prev
	}
	out, err := p.Encode()
	if err != nil {
		return nil, "", err
	}
	return out, summary(p), nil
}

// Record lists (and with req.Watch, watches) the cluster c into a profile
// of this recording alone.
func Record(ctx context.Context, c *Cluster, req Request) (*Profile, error) {
	b := NewBuilder()
	lctx, cancel := context.WithTimeout(ctx, req.Timeout)
	versions, err := c.Snapshot(lctx, b)
	cancel()
	if err != nil {
		return nil, err
	}
	mode := ModeSnapshot
	start := req.Now()
	if req.Watch > 0 {
		mode = ModeWatch
		wctx, cancel := context.WithTimeout(ctx, req.Watch)
		err := c.Watch(wctx, b, versions)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	p := b.Profile(c.Context, mode, req.Now())
	if mode == ModeWatch && len(p.Windows) > 0 {
		// A watch saw what happened while it ran (and the snapshot
		// before it, whose events may go back an hour).
		end := p.Windows[0].To
		p.Windows[0].Mode, p.Windows[0].To = ModeSnapshot, start.UTC()
		if p.Windows[0].From.After(p.Windows[0].To) {
			p.Windows[0].From = p.Windows[0].To
		}
		p.Windows = append(p.Windows, Window{Mode: ModeWatch, From: start.UTC(), To: end})
	}
	return p, nil
}

func summary(p *Profile) string {
	starts, censored, containers := 0, 0, 0
	for _, w := range p.Workloads {
		for _, c := range w.Containers {
			containers++
			if c.Startup != nil && !c.Init {
				starts += c.Startup.Count
			}
			if c.Censored != nil {
				censored += c.Censored.Kills
			}
		}
	}
	return fmt.Sprintf("%s, %s, %s, %s before Ready, %s (%s)", count(len(p.Workloads), "workload"), count(containers, "container"),
		count(starts, "start-up"), count(censored, "probe kill"), count(len(p.Windows), "recording"), p.Mode)
}

// readFile reads one --from file: a regular file (not a FIFO or device,
// which could block or never end), at most MaxListFile bytes.
func readFile(name string, b *Builder) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("--from %s: not a regular file", name)
	}
	if _, err := ReadList(io.Reader(f), b); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return err
		}
		return fmt.Errorf("--from %s: %v", name, err)
	}
	return nil
}

// count says "1 workload", "2 workloads".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
