package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
)

// metaSchemas are the JSON Schema drafts Helm's validator (santhosh-tekuri/
// jsonschema) holds itself (draftFromURL in its draft.go, "schema" being
// the alias of the latest draft); any other $schema it would load by URL.
var metaSchemas = map[string]bool{
	"json-schema.org/schema":               true,
	"json-schema.org/draft-04/schema":      true,
	"json-schema.org/draft-06/schema":      true,
	"json-schema.org/draft-07/schema":      true,
	"json-schema.org/draft/2019-09/schema": true,
	"json-schema.org/draft/2020-12/schema": true,
}

// externalRef returns the first reference of a values.schema.json that
// Helm would resolve by reading a file (file://, a relative path) or
// fetching a URL with its own HTTP client, which podlint's offline
// transport does not cover; "" when every reference stays inside the
// schema ("#/definitions/x").
func externalRef(schema []byte) string {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "" // Helm reports a schema that is not JSON itself
	}
	var found []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				s, isString := e.(string)
				switch {
				case !isString:
				case k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef":
					if !strings.HasPrefix(s, "#") {
						found = append(found, s)
					}
				case k == "$schema":
					u := strings.TrimSuffix(s, "#")
					u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
					if !metaSchemas[u] {
						found = append(found, s)
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	if len(found) == 0 {
		return ""
	}
	sort.Strings(found) // maps have no order: the same one every run
	return found[0]
}

// dropExternalSchemas removes the values schema of every chart (and
// subchart) that refers outside itself, with a problem at the schema: Helm
// would read the file or fetch the URL while validating the values. The
// chart is still rendered, without that schema's validation.
func dropExternalSchemas(ch *chart.Chart, dir string) []Problem {
	var out []Problem
	var rec func(c *chart.Chart, dir string)
	rec = func(c *chart.Chart, dir string) {
		if c.Schema != nil {
			if ref := externalRef(c.Schema); ref != "" {
				c.Schema = nil
				out = append(out, Problem{File: filepath.Join(dir, "values.schema.json"), Line: 1, Column: 1,
					Message: "values.schema.json refers to a schema outside the chart, so it was not used",
					Detail: fmt.Sprintf("It refers to %q; Helm would read that file or fetch that URL while validating the values, and podlint never reads outside the chart nor uses the network. "+
						"The chart was rendered without validating its values. Inline the referenced schema under $defs and refer to it as \"#/$defs/…\".", ref)})
			}
		}
		for _, d := range c.Dependencies() {
			rec(d, filepath.Join(dir, "charts", d.Name()))
		}
	}
	rec(ch, dir)
	return out
}
