package observe

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// What podlint observe reads of a live cluster bounds.
const (
	// PageSize is the Limit of each list request.
	PageSize = 500
	// maxPages bounds one list: 2 000 pages of 500 are a million objects.
	maxPages = 2000
	// maxPage is the largest response podlint reads for one page.
	maxPage = 256 << 20
)

// Cluster is a connection to the API server of a kubeconfig context. It
// only ever sends GET requests: list and watch.
type Cluster struct {
	// Context is the kubeconfig context's name, as the profile records it.
	Context string
	// Namespace is the namespace read, or "" for all.
	Namespace string
	host      string
	client    *http.Client
}

// NewCluster is a connection to the API server at host (scheme, host and
// API path) through client, which authenticates the requests: what
// internal/observe/kubeconfig makes of a kubeconfig context, in the
// podlint-observe executable (ChildCommand). context names the kubeconfig
// context in the profile and in errors; namespace "" reads all.
func NewCluster(context, namespace, host string, client *http.Client) *Cluster {
	return &Cluster{Context: context, Namespace: namespace, host: host, client: client}
}

// resource is one kind podlint observe lists and watches.
type resource struct {
	group, version, plural string
	item                   typeMeta
}

var (
	pods        = resource{"", "v1", "pods", typeMeta{"v1", "Pod"}}
	coreEvents  = resource{"", "v1", "events", typeMeta{"v1", "Event"}}
	eventsV1    = resource{"events.k8s.io", "v1", "events", typeMeta{"events.k8s.io/v1", "Event"}}
	replicaSets = resource{"apps", "v1", "replicasets", typeMeta{"apps/v1", "ReplicaSet"}}
	jobs        = resource{"batch", "v1", "jobs", typeMeta{"batch/v1", "Job"}}
)

func (c *Cluster) path(r resource) string {
	p := "/api/" + r.version
	if r.group != "" {
		p = "/apis/" + r.group + "/" + r.version
	}
	if c.Namespace != "" {
		p += "/namespaces/" + url.PathEscape(c.Namespace)
	}
	return p + "/" + r.plural
}

// Error is a failed request to the API server: what was asked and what
// the server (or the network) said, on one line.
type Error struct {
	Context, Request string
	Status           int
	Message          string
}

func (e *Error) Error() string {
	return fmt.Sprintf("cluster %s: %s: %s", e.Context, e.Request, e.Message)
}

// get sends one GET and returns the response body of a 200.
func (c *Cluster) get(ctx context.Context, path string, q url.Values) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.host+path+"?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	what := "GET " + path
	resp, err := c.client.Do(req)
	if err != nil {
		msg := err.Error()
		var ue *url.Error
		if errors.As(err, &ue) {
			msg = ue.Err.Error()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			msg = "timed out (--timeout)"
		}
		return nil, &Error{Context: c.Context, Request: what, Message: "cannot reach " + c.host + ": " + msg}
	}
	if resp.StatusCode == http.StatusOK {
		return resp.Body, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var status struct {
		Message string `json:"message"`
	}
	msg := resp.Status
	if json.Unmarshal(body, &status) == nil && status.Message != "" {
		msg = fmt.Sprintf("%s: %s", resp.Status, status.Message)
	}
	return nil, &Error{Context: c.Context, Request: what, Status: resp.StatusCode, Message: oneLine(msg)}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// List reads every page of r into b and returns the list's
// resourceVersion, where a watch starts.
func (c *Cluster) list(ctx context.Context, r resource, b *Builder) (string, error) {
	cont := ""
	for range maxPages {
		q := url.Values{"limit": {fmt.Sprint(PageSize)}}
		if cont != "" {
			q.Set("continue", cont)
		}
		body, err := c.get(ctx, c.path(r), q)
		if err != nil {
			return "", err
		}
		_, meta, err := readList(body, b, r.item, maxPage)
		body.Close()
		if err != nil {
			return "", &Error{Context: c.Context, Request: "GET " + c.path(r), Message: err.Error()}
		}
		if meta.Continue == "" {
			return meta.ResourceVersion, nil
		}
		cont = meta.Continue
	}
	return "", &Error{Context: c.Context, Request: "GET " + c.path(r), Message: fmt.Sprintf("more than %d pages of %d", maxPages, PageSize)}
}

// Snapshot lists Pods, events, ReplicaSets and Jobs into b. Core events
// are read, or events.k8s.io ones where the core API is forbidden. It
// returns the resourceVersion of each list, for Watch.
func (c *Cluster) Snapshot(ctx context.Context, b *Builder) (map[string]string, error) {
	versions := map[string]string{}
	for _, r := range []resource{pods, coreEvents, replicaSets, jobs} {
		rv, err := c.list(ctx, r, b)
		var e *Error
		if r == coreEvents && errors.As(err, &e) && e.Status == http.StatusForbidden {
			r = eventsV1
			rv, err = c.list(ctx, r, b)
		}
		if err != nil {
			return nil, err
		}
		versions[c.path(r)] = rv
	}
	return versions, nil
}

// Watch records every change of Pods, events, ReplicaSets and Jobs into b
// from the lists Snapshot returned until ctx ends (the --watch duration),
// which is how it ends without error. A watch the server closes early is
// started again from the last version seen.
func (c *Cluster) Watch(ctx context.Context, b *Builder, versions map[string]string) error {
	var rs []resource
	for _, r := range []resource{pods, coreEvents, eventsV1, replicaSets, jobs} {
		if _, ok := versions[c.path(r)]; ok {
			rs = append(rs, r)
		}
	}
	// The Builder is not safe for concurrent use: the watches hand their
	// objects to this goroutine.
	objects := make(chan watched, 64)
	done := make(chan error, len(rs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, r := range rs {
		go func() { done <- c.watch(ctx, r, versions[c.path(r)], objects) }()
	}
	var first error
	for running := len(rs); running > 0; {
		select {
		case o := <-objects:
			if err := addItem(o.raw, o.r.item, b); err != nil && first == nil {
				first = &Error{Context: c.Context, Request: "watch " + c.path(o.r), Message: err.Error()}
				cancel()
			}
		case err := <-done:
			running--
			if err != nil && first == nil {
				first = err
				cancel()
			}
		}
	}
	return first
}

// watched is one object a watch saw.
type watched struct {
	r   resource
	raw []byte
}

// watchEvent is one line of a watch stream.
type watchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

func (c *Cluster) watch(ctx context.Context, r resource, rv string, out chan<- watched) error {
	for ctx.Err() == nil {
		q := url.Values{"watch": {"1"}, "resourceVersion": {rv}, "allowWatchBookmarks": {"true"}}
		if d, ok := ctx.Deadline(); ok {
			q.Set("timeoutSeconds", fmt.Sprint(max(1, int(time.Until(d).Seconds()+1))))
		}
		body, err := c.get(ctx, c.path(r), q)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		next, err := c.readWatch(ctx, body, r, rv, out)
		body.Close()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		rv = next
	}
	return nil
}

func (c *Cluster) readWatch(ctx context.Context, body io.Reader, r resource, rv string, out chan<- watched) (string, error) {
	dec := json.NewDecoder(bufio.NewReader(body))
	for {
		var ev watchEvent
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return rv, nil
			}
			return rv, &Error{Context: c.Context, Request: "watch " + c.path(r), Message: err.Error()}
		}
		if len(ev.Object) > MaxItem {
			return rv, &Error{Context: c.Context, Request: "watch " + c.path(r), Message: "an object larger than the API server stores"}
		}
		var meta struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
			Message string `json:"message"`
			Code    int    `json:"code"`
		}
		_ = json.Unmarshal(ev.Object, &meta)
		switch ev.Type {
		case "ERROR":
			if meta.Code == http.StatusGone {
				// Too old a version: go on from now; what happened in
				// between is lost, as any watcher's would be.
				return "", nil
			}
			return rv, &Error{Context: c.Context, Request: "watch " + c.path(r), Status: meta.Code, Message: oneLine(meta.Message)}
		case "BOOKMARK":
		default:
			select {
			case out <- watched{r, ev.Object}:
			case <-ctx.Done():
				return rv, nil
			}
		}
		if meta.Metadata.ResourceVersion != "" {
			rv = meta.Metadata.ResourceVersion
		}
	}
}
