package observe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Limits bound what one --from file may cost.
const (
	// MaxListFile is the largest file --from reads: a cluster of 10 000
	// Pods lists in about 100 MB.
	MaxListFile = 512 << 20
	// MaxItem is the largest single object of a list: the API server's
	// own limit on an object is 1.5 MiB (etcd's request size).
	MaxItem = 3 << 20
)

// ReadList feeds the objects of what `kubectl get pods,events,replicasets,
// jobs -o json` prints (a v1 List, or one object) to b, one item at a time:
// memory grows with the facts kept, not with the file. Items of other
// kinds are skipped; a malformed item is an error naming it.
func ReadList(r io.Reader, b *Builder) (int, error) {
	n, _, err := readList(r, b, typeMeta{}, MaxListFile)
	return n, err
}

// listMeta is what a paginated list says of the next page.
type listMeta struct {
	Continue        string `json:"continue"`
	ResourceVersion string `json:"resourceVersion"`
}

// readList is ReadList for a list of the API server too, whose items have
// no kind (item is their type) and whose metadata says where the next page
// starts; it reads at most limit bytes.
func readList(r io.Reader, b *Builder, item typeMeta, limit int64) (int, listMeta, error) {
	var meta listMeta
	n, err := readItems(r, b, item, limit, &meta)
	return n, meta, err
}

func readItems(r io.Reader, b *Builder, item typeMeta, limit int64, meta *listMeta) (int, error) {
	lr := &io.LimitedReader{R: r, N: limit + 1}
	dec := json.NewDecoder(lr)
	tooBig := func(err error) error {
		if lr.N <= 0 {
			return fmt.Errorf("larger than %d MB, more than podlint observe reads", limit>>20)
		}
		return err
	}
	tok, err := dec.Token()
	if err != nil {
		return 0, tooBig(jsonError(err, "not JSON (want the output of kubectl get ... -o json)"))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return 0, errors.New("not a JSON object (want the output of kubectl get ... -o json)")
	}
	// The top object is read key by key so that items are decoded one
	// by one; an object that is not a List is kept whole and added.
	var top map[string]json.RawMessage
	n := 0
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return n, tooBig(jsonError(err, "malformed JSON"))
		}
		key, _ := kt.(string)
		if key != "items" {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return n, tooBig(jsonError(err, "malformed JSON"))
			}
			if top == nil {
				top = map[string]json.RawMessage{}
			}
			top[key] = v
			continue
		}
		if tok, err := dec.Token(); err != nil {
			return n, tooBig(jsonError(err, "malformed JSON"))
		} else if d, ok := tok.(json.Delim); !ok || d != '[' {
			if tok == nil {
				continue // "items": null
			}
			return n, errors.New(`"items" is not a list`)
		}
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return n, tooBig(jsonError(err, fmt.Sprintf("item %d: malformed JSON", n+1)))
			}
			if len(raw) > MaxItem {
				return n, fmt.Errorf("item %d: %d bytes, larger than any object the API server stores", n+1, len(raw))
			}
			if err := addItem(raw, item, b); err != nil {
				return n, fmt.Errorf("item %d: %v", n+1, err)
			}
			n++
		}
		if _, err := dec.Token(); err != nil {
			return n, tooBig(jsonError(err, "malformed JSON"))
		}
	}
	if _, err := dec.Token(); err != nil {
		return n, tooBig(jsonError(err, "malformed JSON"))
	}
	if _, err := dec.Token(); err != io.EOF {
		return n, errors.New("more than one JSON value (want one kubectl get ... -o json output per file)")
	}
	var kind string
	if raw, ok := top["kind"]; ok {
		_ = json.Unmarshal(raw, &kind)
	}
	if raw, ok := top["metadata"]; ok && meta != nil {
		_ = json.Unmarshal(raw, meta)
	}
	if kind != "" && !strings.HasSuffix(kind, "List") {
		whole, err := json.Marshal(top)
		if err != nil {
			return n, err
		}
		if err := addItem(whole, typeMeta{}, b); err != nil {
			return n, err
		}
		return 1, nil
	}
	if kind == "" && n == 0 {
		return 0, errors.New(`no "kind" and no "items": not what kubectl get -o json prints`)
	}
	return n, nil
}

func jsonError(err error, what string) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: the file ends early", what)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s at byte %d: %v", what, se.Offset, se)
	}
	return fmt.Errorf("%s: %v", what, err)
}

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// addItem decodes one object into its k8s.io/api type and adds it.
func addItem(raw []byte, item typeMeta, b *Builder) error {
	var tm typeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return fmt.Errorf("not an object: %v", err)
	}
	if tm.Kind == "" && tm.APIVersion == "" {
		tm = item // the API server's lists leave out their items' kind
	}
	switch {
	case tm.Kind == "Pod" && tm.APIVersion == "v1":
		return decodeAs(raw, tm.Kind, b.AddPod)
	case tm.Kind == "Event" && tm.APIVersion == "v1":
		return decodeAs(raw, tm.Kind, b.AddEvent)
	case tm.Kind == "Event" && tm.APIVersion == "events.k8s.io/v1":
		return decodeAs(raw, tm.Kind, b.AddEventV1)
	case tm.Kind == "ReplicaSet" && tm.APIVersion == "apps/v1":
		return decodeAs(raw, tm.Kind, b.AddReplicaSet)
	case tm.Kind == "Job" && tm.APIVersion == "batch/v1":
		return decodeAs(raw, tm.Kind, b.AddJob)
	case tm.Kind == "":
		return errors.New(`no "kind"`)
	}
	return nil
}

// decodeAs decodes one object of a k8s.io/api type and adds it.
func decodeAs[T any](raw []byte, kind string, add func(*T)) error {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("%s: %v", kind, err)
	}
	add(&v)
	return nil
}
