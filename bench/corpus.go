// Package bench measures podlint against the floor it must beat: decoding
// the same workloads with sigs.k8s.io/yaml into their k8s.io/api types, as
// kubectl does. It builds the benchmark corpus from real manifests (by
// default the sample committed in testdata/corpus); the benchmarks are in
// bench_test.go and scripts/bench.sh runs them together with the real binary.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package bench

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/podlint/podlint/manifest"
	sigsyaml "sigs.k8s.io/yaml"
)

// Doc is one workload document of the benchmark corpus.
type Doc struct {
	Text []byte
	Type reflect.Type // the k8s.io/api struct it decodes into
}

// Corpus is the benchmark corpus: Files files of PerFile documents each.
type Corpus struct {
	Docs    []Doc
	PerFile int
}

// Bytes is the total size of the corpus files.
func (c *Corpus) Bytes() int64 {
	var n int64
	for i := 0; i < len(c.Docs); i += c.PerFile {
		n += int64(len(c.file(i)))
	}
	return n
}

// Files is the number of files.
func (c *Corpus) Files() int { return (len(c.Docs) + c.PerFile - 1) / c.PerFile }

// file returns the text of the file whose first document is Docs[first].
func (c *Corpus) file(first int) []byte {
	var b bytes.Buffer
	for _, d := range c.Docs[first:min(first+c.PerFile, len(c.Docs))] {
		b.WriteString("---\n")
		b.Write(d.Text)
	}
	return b.Bytes()
}

// Single is the whole corpus as one file: the files' texts concatenated,
// every document starting with a "---" line.
func (c *Corpus) Single() []byte {
	var b bytes.Buffer
	b.Grow(int(c.Bytes()))
	for first := 0; first < len(c.Docs); first += c.PerFile {
		b.Write(c.file(first))
	}
	return b.Bytes()
}

// Workloads reads every document of the manifests under dir that is a
// natively decoded workload kind (Pod, Deployment, …, CronJob) and that both
// podlint and sigs.k8s.io/yaml decode without error, in a stable order.
func Workloads(dir string) ([]Doc, error) {
	var docs []Doc
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := filepath.Ext(p)
		if d.IsDir() || (ext != ".yaml" && ext != ".yml") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, text := range splitSimple(data) {
			if doc, ok := workload(text); ok {
				docs = append(docs, doc)
			}
		}
		return nil
	})
	if err == nil && len(docs) == 0 {
		err = fmt.Errorf("no workload documents under %s", dir)
	}
	return docs, err
}

// splitSimple cuts a file at lines that start with "---"; documents that a
// more careful split would keep together fail the checks in workload and are
// left out, which is all the corpus needs.
func splitSimple(data []byte) [][]byte {
	var out [][]byte
	for _, part := range bytes.Split(append([]byte("\n"), data...), []byte("\n---")) {
		if i := bytes.IndexByte(part, '\n'); i >= 0 {
			part = part[i+1:] // the rest of the marker line
		} else {
			continue
		}
		if len(bytes.TrimSpace(part)) > 0 {
			if part[len(part)-1] != '\n' {
				part = append(part[:len(part):len(part)], '\n')
			}
			out = append(out, part)
		}
	}
	return out
}

func workload(text []byte) (Doc, bool) {
	res := manifest.Parse("doc.yaml", text, manifest.DefaultLimits)
	if len(res.Objects) != 1 || len(res.Problems) != 0 {
		return Doc{}, false
	}
	o := res.Objects[0]
	if o.Workload == nil || !manifest.IsWorkloadKind(o.Ref.APIVersion, o.Ref.Kind) || strings.Contains(string(text), "{{") {
		return Doc{}, false
	}
	typ := reflect.TypeOf(o.Typed).Elem()
	if err := sigsyaml.Unmarshal(text, reflect.New(typ).Interface()); err != nil {
		return Doc{}, false
	}
	return Doc{Text: text, Type: typ}, true
}

// Build takes n documents round-robin from docs, perFile to a file.
func Build(docs []Doc, n, perFile int) *Corpus {
	c := &Corpus{PerFile: perFile, Docs: make([]Doc, n)}
	for i := range c.Docs {
		c.Docs[i] = docs[i%len(docs)]
	}
	return c
}

// Write writes the corpus into dir as f00000.yaml, f00001.yaml, … and
// returns the file paths.
func (c *Corpus) Write(dir string) ([]string, error) {
	var paths []string
	for i, first := 0, 0; first < len(c.Docs); i, first = i+1, first+c.PerFile {
		p := filepath.Join(dir, fmt.Sprintf("f%05d.yaml", i))
		if err := os.WriteFile(p, c.file(first), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
