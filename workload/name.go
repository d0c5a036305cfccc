package workload

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ContainerName is how a message names a container: %q prints its name
// quoted ("api"), %s and %v bare. The template of a custom resource may
// leave a container unnamed (Knative names it when it makes the Revision,
// an unknown operator may too); then every verb prints its place in its
// list and its image, `#1 (helloworld-go:1)`, never an empty name, so that
// `container %q`, `liveness probe of %q` and `%s %q` with the container's
// type all still read.
type ContainerName struct {
	Name, Image string
	Index       int // in its list (containers or initContainers), from 0
}

// Format implements fmt.Formatter.
func (n ContainerName) Format(f fmt.State, verb rune) {
	switch {
	case n.Name == "" && n.Image == "":
		fmt.Fprintf(f, "#%d", n.Index+1)
	case n.Name == "":
		fmt.Fprintf(f, "#%d (%s)", n.Index+1, shortImage(n.Image))
	case verb == 'q':
		_, _ = io.WriteString(f, strconv.Quote(n.Name))
	default:
		_, _ = io.WriteString(f, n.Name)
	}
}

// shortImage is an image reference without its registry, repository path
// and digest, at most 40 characters: "gcr.io/knative-samples/helloworld-go:1"
// is "helloworld-go:1".
func shortImage(image string) string {
	image, _, _ = strings.Cut(image, "@")
	if i := strings.LastIndexByte(image, '/'); i >= 0 {
		image = image[i+1:]
	}
	if r := []rune(image); len(r) > 40 {
		image = string(r[:39]) + "…"
	}
	return image
}
