package plot

import (
	"bytes"
	"strings"
	"testing"

	"github.com/podlint/podlint/timeline"
)

// TestHoverSaysNever: a row the model knows never ends reads "never" in
// the hover as in the text chart, not a bar without end (the hover of a
// container its liveness probe kills before its expected start-up drew
// "start → ready" as █████▸).
func TestHoverSaysNever(t *testing.T) {
	it := fixtures()[0]
	w := *it.Timeline
	c := *w.Container("web")
	ready := *c.Ready
	ready.Never = true
	c.Ready = &ready
	w.Containers = []*timeline.Container{&c}
	it.Timeline = &w
	var b bytes.Buffer
	if ok, _ := Hover(&b, it, TopicReadiness, "web", 60); !ok {
		t.Fatal("no hover")
	}
	rows := 0
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "  start → ready") {
			rows++
			if !strings.HasSuffix(l, " never") {
				t.Errorf("a row that never ends is drawn as a bar: %q", l)
			}
		}
	}
	if rows != 1 {
		t.Errorf("%d start → ready rows:\n%s", rows, b.String())
	}
}
