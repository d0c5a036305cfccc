package observe

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Scrub rewrites what `kubectl get pods,events,replicasets,jobs -A -o json`
// printed so that it can be committed as test data: only the kinds a
// profile reads stay (no Secret, no ConfigMap), and what a profile never
// holds is removed (UIDs, IPs, node names, environment values, annotations,
// managed fields, the event source's host). What remains is what Builder
// reads, so a profile built from the scrubbed list equals one built from
// the original (TestScrubKeepsTheProfile). Recording is
//
//	kubectl get pods,events,replicasets,jobs -A -o json | go run -tags observescrub ./internal/observe/cmd/scrub
//
// Names stay: choose them for the recording.
func Scrub(data []byte) ([]byte, error) {
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	items, _ := top["items"].([]any)
	if items == nil {
		items = []any{top}
		top = map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{}}
	}
	names := map[string]bool{}
	for _, it := range items {
		collectNodes(it, names)
	}
	nodes := nodeNames(names)
	kept := []any{}
	for _, it := range items {
		o, ok := it.(map[string]any)
		if !ok {
			continue
		}
		switch o["kind"] {
		case "Pod", "Event", "ReplicaSet", "Job":
		default:
			continue
		}
		scrubObject(o, nodes)
		kept = append(kept, o)
	}
	top["items"] = kept
	return json.MarshalIndent(top, "", "  ")
}

// scrubbed names the fields removed wherever they appear.
var scrubbed = map[string]bool{
	"uid": true, "managedFields": true, "annotations": true, "nodeName": true,
	"podIP": true, "podIPs": true, "hostIP": true, "hostIPs": true, "host": true,
	"reportingInstance": true, "selfLink": true, "imageID": true, "containerID": true,
	"env": true, "envFrom": true, "volumes": true, "volumeMounts": true, "args": true, "command": true,
	"serviceAccountName": true, "serviceAccount": true, "nodeSelector": true, "tolerations": true,
	"affinity": true, "imagePullSecrets": true, "resourceClaimStatuses": true,
}

// ipAddress finds the IPv4 and IPv6 addresses that event messages quote
// ("dial tcp 10.244.1.17:8080: connect: connection refused").
var ipAddress = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}\b|\b(?:[0-9a-fA-F]{0,4}:){2,7}[0-9a-fA-F]{0,4}\b`)
})

// uidOrID finds what event messages quote of UIDs ("cache-…_ns(9e66e1ff-
// 5604-…)") and of container IDs ("task 6e72…ace not found").
var uidOrID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b[0-9a-f]{64}\b`)
})

// collectNodes gathers the node names an object holds in the fields
// scrubbing removes, so that the messages quoting them ("Successfully
// assigned ns/pod to node-7") lose them too.
func collectNodes(v any, nodes map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if n, ok := e.(string); ok && n != "" && (k == "nodeName" || k == "host" || k == "reportingInstance") {
				nodes[n] = true
			}
			collectNodes(e, nodes)
		}
	case []any:
		for _, e := range x {
			collectNodes(e, nodes)
		}
	}
}

// nodeNames matches the node names as whole words (a node named like a
// container must not change what the profile reads: "Container app
// failed …"), longest first; nil when there are none.
func nodeNames(names map[string]bool) *regexp.Regexp {
	if len(names) == 0 {
		return nil
	}
	var quoted []string
	for n := range names {
		quoted = append(quoted, regexp.QuoteMeta(n))
	}
	slices.SortFunc(quoted, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return regexp.MustCompile(`\b(?:` + strings.Join(quoted, "|") + `)\b`)
}

func scrubObject(v any, nodes *regexp.Regexp) any {
	switch x := v.(type) {
	case map[string]any:
		for k := range x {
			if scrubbed[k] {
				delete(x, k)
				continue
			}
			x[k] = scrubObject(x[k], nodes)
		}
	case []any:
		for i, e := range x {
			x[i] = scrubObject(e, nodes)
		}
	case string:
		return scrubString(x, nodes)
	}
	return v
}

func scrubString(s string, nodes *regexp.Regexp) string {
	s = ipAddress().ReplaceAllStringFunc(s, func(ip string) string {
		if !strings.Contains(ip, ".") && !strings.Contains(ip, "::") && strings.Count(ip, ":") != 7 {
			return ip // "10:02:45" in a message is a time
		}
		return "192.0.2.1" // TEST-NET-1 (RFC 5737)
	})
	s = uidOrID().ReplaceAllString(s, "00000000-0000-0000-0000-000000000000")
	if nodes != nil {
		s = nodes.ReplaceAllString(s, "node")
	}
	return s
}
