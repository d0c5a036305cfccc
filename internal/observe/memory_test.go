package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/podlint/podlint/internal/alloctest"
)

// bigList is a List of n Pods shaped as the web Pods of
// testdata/snapshot.json (each a restarted, probe-killed container), in
// n/10 Deployments, with their ReplicaSets and kill events.
func bigList(t testing.TB, n int) []byte {
	list := snapshotItems(t)
	tmpl, _ := json.Marshal(list.Items[1]) // shop/web-6d4b9c-b
	ev, _ := json.Marshal(list.Items[5])   // its Killing event
	var b bytes.Buffer
	b.WriteString(`{"apiVersion":"v1","kind":"List","items":[`)
	for i := range n {
		dep := fmt.Sprintf("web%d", i/10)
		pod := bytes.ReplaceAll(tmpl, []byte(`"web-6d4b9c-b"`), fmt.Appendf(nil, `"%s-6d4b9c-%d"`, dep, i))
		pod = bytes.ReplaceAll(pod, []byte(`"web-6d4b9c"`), fmt.Appendf(nil, `"%s-6d4b9c"`, dep))
		b.Write(pod)
		b.WriteByte(',')
		e := bytes.ReplaceAll(ev, []byte("web-6d4b9c-b"), fmt.Appendf(nil, "%s-6d4b9c-%d", dep, i))
		b.Write(e)
		b.WriteByte(',')
	}
	for d := range (n + 9) / 10 {
		fmt.Fprintf(&b, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web%d-6d4b9c","namespace":"shop","ownerReferences":[{"kind":"Deployment","name":"web%d","controller":true}]}},`, d, d)
	}
	b.Truncate(b.Len() - 1)
	b.WriteString("]}")
	return b.Bytes()
}

// snapshotItems are the objects of testdata/snapshot.json, decoded.
func snapshotItems(t testing.TB) (list struct{ Items []map[string]any }) {
	data, err := os.ReadFile("testdata/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	return list
}

func readAll(t testing.TB, data []byte) *Builder {
	b := NewBuilder()
	if _, err := ReadList(bytes.NewReader(data), b); err != nil {
		t.Fatal(err)
	}
	return b
}

// A 10 000-Pod list is read item by item: what the builder keeps is a
// small fraction of the list, and the allocation grows linearly with the
// Pods. Both are byte counts of the code under test, not times; the test
// reads process-wide counters, so it does not run in parallel.
func TestTenThousandPodsMemory(t *testing.T) {
	small, large := bigList(t, 1000), bigList(t, 10000)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b := readAll(t, large)
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	// The facts kept per Pod (names, a last termination, a sample, the
	// kill count of its event) were 800 bytes when measured; the list
	// holds 1.7 KB per Pod and event, a real Pod with its full spec 5 to
	// 20 KB.
	if kept > 10000*1024+alloctest.Floor || kept > int64(len(large))/2 {
		t.Errorf("the builder keeps %d bytes after reading a %d-byte list of 10 000 Pods; want at most 1 KiB per Pod and half the list", kept, len(large))
	}
	p := b.Profile("", ModeSnapshot, time.Time{})
	if len(p.Workloads) != 1000 || p.Workloads[0].Pods != 10 {
		t.Fatalf("got %d workloads", len(p.Workloads))
	}
	runtime.KeepAlive(b)

	l := after.TotalAlloc - before.TotalAlloc
	s := alloctest.Bytes(func() { readAll(t, small) })
	if alloctest.Exceeds(s, l, 10*1.3) {
		t.Errorf("1 000 Pods allocate %d bytes, 10 000 allocate %d: more than linear", s, l)
	}
	t.Logf("list %d bytes; kept %d bytes; allocated %d (1 000 Pods) and %d (10 000)", len(large), kept, s, l)
}
