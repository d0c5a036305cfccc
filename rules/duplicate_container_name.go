package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var DuplicateContainerName = &Rule{
	ID: "PL010", Name: "duplicate-container-name", Title: "two containers share a name",
	Severity: finding.Error,
	Check: func(p *Pass) {
		if !p.PodValidated() {
			return
		}
		seen := map[string]ContainerRef{}
		for _, c := range p.Containers() {
			if c.C.Name == "" {
				continue
			}
			if first, dup := seen[c.C.Name]; dup {
				p.Report(Diagnostic{Path: c.Field("name"), Container: c.C.Name,
					Message: fmt.Sprintf("%s name %q is already used by the %s declared earlier", c.Type.Noun(), c.C.Name, first.Type.Noun()),
					Detail:  "The API server rejects the Pod, so no Pod is created. Rename one of them.",
					Related: []Related{{Path: first.Field("name"), Message: "first use of the name"}}})
				continue
			}
			seen[c.C.Name] = c
		}
	},
}
