package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAPI serves testdata/snapshot.json as an API server would: lists
// without item kinds, in pages of pageSize with continue tokens, core
// events forbidden (so events.k8s.io is read), and watches from
// watchLines. It records the requests.
type fakeAPI struct {
	t          *testing.T
	items      map[string][]json.RawMessage // by path
	pageSize   int
	mu         sync.Mutex
	requests   []string
	watchLines map[string][]string
	watched    func() // called when a watch is asked again after its lines
}

func newFakeAPI(t *testing.T) *fakeAPI {
	list := snapshotItems(t)
	f := &fakeAPI{t: t, items: map[string][]json.RawMessage{}, pageSize: 3, watchLines: map[string][]string{}}
	paths := map[string]string{"Pod": "/api/v1/pods", "ReplicaSet": "/apis/apps/v1/replicasets", "Job": "/apis/batch/v1/jobs"}
	for _, it := range list.Items {
		kind := it["kind"].(string)
		p := paths[kind]
		if kind == "Event" {
			p = "/apis/events.k8s.io/v1/events"
			if it["apiVersion"] == "v1" {
				it = coreToV1(it)
			}
		}
		if p == "" {
			continue
		}
		delete(it, "kind")
		delete(it, "apiVersion")
		raw, _ := json.Marshal(it)
		f.items[p] = append(f.items[p], raw)
	}
	return f
}

// coreToV1 rewrites a core/v1 Event as the events.k8s.io/v1 API shows it.
func coreToV1(e map[string]any) map[string]any {
	return map[string]any{"metadata": e["metadata"], "regarding": e["involvedObject"], "reason": e["reason"], "note": e["message"],
		"deprecatedCount": e["count"], "deprecatedFirstTimestamp": e["firstTimestamp"], "deprecatedLastTimestamp": e["lastTimestamp"]}
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	f.mu.Unlock()
	q := r.URL.Query()
	if r.Method != http.MethodGet {
		http.Error(w, "read-only", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == "/api/v1/events" {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"events is forbidden: User \"observer\" cannot list resource \"events\" in API group \"\" at the cluster scope","reason":"Forbidden","code":403}`)
		return
	}
	if q.Get("watch") == "1" {
		f.mu.Lock()
		lines := f.watchLines[r.URL.Path]
		f.watchLines[r.URL.Path] = nil
		f.mu.Unlock()
		if lines == nil {
			if f.watched != nil && r.URL.Path == "/api/v1/pods" {
				f.watched()
			}
			<-r.Context().Done()
			return
		}
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		return
	}
	items, ok := f.items[r.URL.Path]
	if !ok && !strings.HasPrefix(r.URL.Path, "/api") {
		http.NotFound(w, r)
		return
	}
	if q.Get("limit") != fmt.Sprint(PageSize) {
		f.t.Errorf("%s: limit=%q; want %d", r.URL, q.Get("limit"), PageSize)
	}
	start := 0
	if c := q.Get("continue"); c != "" {
		fmt.Sscanf(c, "from-%d", &start)
	}
	end := min(start+f.pageSize, len(items))
	cont := ""
	if end < len(items) {
		cont = fmt.Sprintf("from-%d", end)
	}
	page := items[start:end]
	if page == nil {
		page = []json.RawMessage{}
	}
	out, _ := json.Marshal(map[string]any{"kind": "List", "apiVersion": "v1", "metadata": map[string]any{"continue": cont, "resourceVersion": "100"}, "items": page})
	w.Write(out)
}

// testCluster is the cluster at server as kubeconfig.Connect makes it for
// the context "test", reading namespace ns ("" for all); the kubeconfig
// reading itself is tested there.
func testCluster(server, ns string) *Cluster {
	return NewCluster("test", ns, server, &http.Client{})
}

// The live path lists every page (10 Pods in pages of 3 are 4 requests)
// and builds the same profile as the file kubectl would have printed.
func TestSnapshotPaginated(t *testing.T) {
	api := newFakeAPI(t)
	ts := httptest.NewServer(api)
	defer ts.Close()
	c := testCluster(ts.URL, "")
	b := NewBuilder()
	if _, err := c.Snapshot(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	var podPages []string
	for _, r := range api.requests {
		if strings.HasPrefix(r, "GET /api/v1/pods?") {
			podPages = append(podPages, r)
		}
	}
	if len(podPages) != 4 || !strings.Contains(podPages[1], "continue=from-3") || !strings.Contains(podPages[3], "continue=from-9") {
		t.Errorf("pod pages: %v; want 4 requests following the continue tokens", podPages)
	}
	got, _ := b.Profile("test", ModeSnapshot, time.Time{}).Encode()
	want := snapshot(t)
	want.Context = "test"
	w, _ := want.Encode()
	if string(got) != string(w) {
		t.Errorf("the paginated live profile differs from the file's:\n%s\n---\n%s", got, w)
	}
}

func TestClusterNamespacePath(t *testing.T) {
	c := testCluster("http://127.0.0.1:1", "shop")
	if c.path(pods) != "/api/v1/namespaces/shop/pods" || c.path(eventsV1) != "/apis/events.k8s.io/v1/namespaces/shop/events" {
		t.Errorf("paths %s, %s; want the namespace's", c.path(pods), c.path(eventsV1))
	}
}

// A cluster error is one line naming the context and the request.
func TestClusterErrors(t *testing.T) {
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"kind":"Status","message":"pods is forbidden: User \"x\" cannot list resource \"pods\"\nin API group \"\"","code":403}`)
	}))
	defer forbidden.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	for _, tc := range []struct {
		server string
		ctx    func() (context.Context, context.CancelFunc)
		want   string
	}{
		{forbidden.URL, nil, `cluster test: GET /api/v1/pods: 403 Forbidden: pods is forbidden: User "x" cannot list resource "pods" in API group ""`},
		{gone.URL, nil, "cluster test: GET /api/v1/pods: cannot reach " + gone.URL + ": "},
		{forbidden.URL, func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Unix(0, 0))
		}, "timed out"},
	} {
		c := testCluster(tc.server, "")
		ctx := context.Background()
		if tc.ctx != nil {
			var cancel context.CancelFunc
			ctx, cancel = tc.ctx()
			defer cancel()
		}
		_, err := c.Snapshot(ctx, NewBuilder())
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("got %v; want one line with %q", err, tc.want)
		}
	}
}

// A watch sees a Pod deleted (its shutdown) and a ReplicaSet of a new
// rollout; merged into the snapshot's profile, the window is the union
// and nothing the snapshot saw is counted twice.
func TestWatchMergedIntoProfile(t *testing.T) {
	api := newFakeAPI(t)
	ts := httptest.NewServer(api)
	defer ts.Close()
	c := testCluster(ts.URL, "")
	before := snapshot(t)

	terminating := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-6d4b9c-a","namespace":"shop","resourceVersion":"101","deletionTimestamp":"2026-12-01T11:00:30Z","deletionGracePeriodSeconds":30,
		"ownerReferences":[{"kind":"ReplicaSet","name":"web-6d4b9c","controller":true}],"labels":{"pod-template-hash":"6d4b9c"}},
		"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-12-01T10:00:52Z"}],
		"containerStatuses":[{"name":"app","restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed","startedAt":"2026-12-01T10:00:00Z","finishedAt":"2026-12-01T11:00:12Z"}}}]}}`
	api.watchLines["/api/v1/pods"] = []string{
		`{"type":"MODIFIED","object":` + strings.Join(strings.Fields(terminating), "") + `}`,
		`{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"102"}}}`,
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	api.watched = cancel // the pods watch is asked again: all lines were read
	b := NewBuilder()
	versions, err := c.Snapshot(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(ctx, b, versions); err != nil {
		t.Fatal(err)
	}
	// What the watch recorded is a window of its own (here from its
	// objects' times); podlint observe gives it the clock's.
	rec := b.Profile("test", ModeWatch, time.Date(2026, 12, 1, 11, 5, 0, 0, time.UTC))
	before.Merge(rec)
	if before.Mode != ModeWatch || len(before.Windows) != 2 || before.Context != "test" {
		t.Errorf("mode %s, %d windows, context %q; want watch, 2, test", before.Mode, len(before.Windows), before.Context)
	}
	_, app := find(t, before, "shop/Deployment/web", "app")
	if got := samples(app.Shutdowns.Took); got != "31s 12s" {
		t.Errorf("shutdowns = %s; want the snapshot's 31s and the watched 12s (deletion at 11:00:00, exit at 11:00:12)", got)
	}
	if samples(app.Shutdowns.SIGKILL) != "31s" {
		t.Errorf("SIGKILL = %s; the watched Pod exited 0", samples(app.Shutdowns.SIGKILL))
	}
	if got := samples(app.Startup); got != "52s 42s" {
		t.Errorf("start-ups = %s; the watch saw the snapshot's Pods again and must not count them twice", got)
	}
	if app.Censored.Kills != 6 {
		t.Errorf("kills = %d; the same events seen twice are 6 kills", app.Censored.Kills)
	}
	for _, r := range api.requests {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("a request that is not a GET: %s", r)
		}
	}
}
