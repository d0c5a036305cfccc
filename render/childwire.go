package render

// The child's reply: a Rendered flattened for gob. A kustomize document's
// origin points into the tree of kustomizations (to find the patches that
// set a field), which gob cannot encode as pointers, so the tree travels
// as a table and the pointers as indexes into it.

type wireRendered struct {
	Docs        []wireDoc
	Problems    []Problem
	ValuesFiles []wireValues
	Kusts       []wireKust
	// Stats is what rendering cost the child, for --debug.
	Stats childStats
}

// childStats is what a render child measured of itself once it rendered:
// the parent's trace prints it, so that a root near its limits can be
// told apart from a collector that works too hard.
type childStats struct {
	GCCycles  uint64
	GCPercent int // GOGC when rendering ended
}

// wireValues is a values file as the child read it: the parent quotes
// these bytes, never a file it would have to read again.
type wireValues struct {
	Path string
	Data []byte
}

type wireDoc struct {
	Source, Name, YAML string
	Template           []byte
	Origin             *wireOrigin
}

type wireOrigin struct {
	Root                           int
	File, ConfiguredIn, Kind, Name string
}

type wireKust struct {
	Dir, File            string
	Children, Components []int
	Patches              []wirePatch
}

type wirePatch struct {
	File                   string
	LineOffset, Indent     int
	Text                   []byte
	TargetKind, TargetName string
}

func (r *Output) wire() *wireRendered {
	w := &wireRendered{Problems: r.Problems}
	for _, v := range r.valuesFiles {
		w.ValuesFiles = append(w.ValuesFiles, wireValues{Path: v.path, Data: v.data})
	}
	index := map[*kust]int{}
	var add func(k *kust) int
	add = func(k *kust) int {
		if i, ok := index[k]; ok {
			return i
		}
		i := len(w.Kusts)
		index[k] = i
		w.Kusts = append(w.Kusts, wireKust{Dir: k.dir, File: k.file})
		var children, components []int
		for _, c := range k.children {
			children = append(children, add(c))
		}
		for _, c := range k.components {
			components = append(components, add(c))
		}
		var patches []wirePatch
		for _, p := range k.patches {
			patches = append(patches, wirePatch{File: p.file, LineOffset: p.lineOffset, Indent: p.indent, Text: p.text,
				TargetKind: p.targetKind, TargetName: p.targetName})
		}
		w.Kusts[i].Children, w.Kusts[i].Components, w.Kusts[i].Patches = children, components, patches
		return i
	}
	for _, d := range r.Docs {
		wd := wireDoc{Source: d.Source, Name: d.Name, YAML: d.YAML, Template: d.Template}
		if o := d.origin; o != nil {
			wd.Origin = &wireOrigin{Root: -1, File: o.file, ConfiguredIn: o.configuredIn, Kind: o.kind, Name: o.name}
			if o.root != nil {
				wd.Origin.Root = add(o.root)
			}
		}
		w.Docs = append(w.Docs, wd)
	}
	return w
}

// rendered rebuilds the Rendered. Indexes come from podlint's own child,
// but one out of range is dropped rather than trusted.
func (w *wireRendered) rendered() *Output {
	r := &Output{Problems: w.Problems}
	for _, v := range w.ValuesFiles {
		r.valuesFiles = append(r.valuesFiles, valuesFile{v.Path, v.Data})
	}
	kusts := make([]*kust, len(w.Kusts))
	for i, wk := range w.Kusts {
		k := &kust{dir: wk.Dir, file: wk.File}
		for _, p := range wk.Patches {
			k.patches = append(k.patches, &kPatch{file: p.File, lineOffset: p.LineOffset, indent: p.Indent, text: p.Text,
				targetKind: p.TargetKind, targetName: p.TargetName})
		}
		kusts[i] = k
	}
	at := func(i int) *kust {
		if i >= 0 && i < len(kusts) {
			return kusts[i]
		}
		return nil
	}
	for i, wk := range w.Kusts {
		for _, c := range wk.Children {
			if k := at(c); k != nil {
				kusts[i].children = append(kusts[i].children, k)
			}
		}
		for _, c := range wk.Components {
			if k := at(c); k != nil {
				kusts[i].components = append(kusts[i].components, k)
			}
		}
	}
	for _, wd := range w.Docs {
		d := Doc{Source: wd.Source, Name: wd.Name, YAML: wd.YAML, Template: wd.Template}
		if o := wd.Origin; o != nil {
			d.origin = &kOrigin{root: at(o.Root), file: o.File, configuredIn: o.ConfiguredIn, kind: o.Kind, name: o.Name}
		}
		r.Docs = append(r.Docs, d)
	}
	return r
}
