package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// timelineFields runs podlint timeline -f json and returns every object's
// fields by object name and path.
func timelineFields(t *testing.T, args ...string) (objects map[string]timelineObject, fields map[string]map[string]timelineField) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(append([]string{"podlint", "timeline", "-f", "json"}, args...), strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("podlint timeline %v: exit %d: %s", args, code, stderr.String())
	}
	var doc struct {
		Objects []struct {
			File   string
			Line   int
			Name   string
			Fields []timelineField
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	objects, fields = map[string]timelineObject{}, map[string]map[string]timelineField{}
	for _, o := range doc.Objects {
		objects[o.Name] = timelineObject{o.File, o.Line}
		fields[o.Name] = map[string]timelineField{}
		for _, f := range o.Fields {
			fields[o.Name][f.Path] = f
		}
	}
	return objects, fields
}

type timelineObject struct {
	File string
	Line int
}

type timelineField struct {
	Path         string
	File         string
	Line, Column int
	Approximate  bool
}

// TestTimelinePlacesRenderedFields: podlint timeline on a Helm chart and a
// kustomization places each field its spans depend on at the template or
// patch line where podlint check reports a finding at that field (one
// loader, one source map), not only the object.
func TestTimelinePlacesRenderedFields(t *testing.T) {
	for _, tc := range []struct {
		root string
		// a field the timeline must place, away from the object's line
		object, path, file string
		line, column       int
	}{
		{"kustomize/probe-patch/overlay", "prod-api", "spec.template.spec.containers[0].livenessProbe.initialDelaySeconds",
			"kustomize/probe-patch/overlay/slow-start.yaml", 12, 34},
		{"helm/podinfo", "release-name-podinfo", "spec.template.spec.terminationGracePeriodSeconds",
			"helm/podinfo/templates/deployment.yaml", 30, 38},
	} {
		t.Run(tc.root, func(t *testing.T) {
			root := filepath.Join(renderData, tc.root)
			objects, fields := timelineFields(t, "--no-config", root)
			f, ok := fields[tc.object][tc.path]
			if !ok {
				t.Fatalf("timeline of %s has no field %s: %v", tc.object, tc.path, fields[tc.object])
			}
			want := timelineField{tc.path, filepath.Join(renderData, tc.file), tc.line, tc.column, false}
			if f != want {
				t.Errorf("field %+v, want %+v", f, want)
			}
			if o := objects[tc.object]; o.File == f.File && o.Line == f.Line {
				t.Errorf("%s is placed at the object's line %s:%d", tc.path, o.File, o.Line)
			}
			// Every finding of check at a field the timeline places is
			// at the same file, line and column.
			out, _, stderr := checkJSON(t, "--config", slowApps(t), "--enable", "PL101,PL202,PL105", root)
			matched := 0
			for _, fd := range out.Findings {
				if fd.Rendered == nil || fd.Object == nil {
					continue
				}
				var path string
				for _, ff := range fields[fd.Object.Name] {
					if ff.Path == fd.Rendered.Path && ff.Path != "" {
						path = ff.Path
					}
				}
				tf, ok := fields[fd.Object.Name][path]
				if !ok {
					continue
				}
				matched++
				if tf.File != fd.File || tf.Line != fd.Line || tf.Column != fd.Column {
					t.Errorf("%s %s at %s: check reports %s:%d:%d, timeline places %s:%d:%d", fd.ID, fd.Object.Name, path, fd.File, fd.Line, fd.Column, tf.File, tf.Line, tf.Column)
				}
			}
			if matched == 0 {
				t.Fatalf("no finding of check is at a field the timeline places (stderr %s): %+v", stderr, out.Findings)
			}
		})
	}
}
