package workload

import (
	"fmt"
	"testing"
)

func TestContainerNameFormat(t *testing.T) {
	for _, tc := range []struct {
		n      ContainerName
		format string
		want   string
	}{
		{ContainerName{Name: "api", Image: "example/api:3"}, "container %q", `container "api"`},
		{ContainerName{Name: "api"}, "%s", "api"},
		{ContainerName{Image: "gcr.io/knative-samples/helloworld-go:1", Index: 0}, "container %q", "container #1 (helloworld-go:1)"},
		{ContainerName{Image: "nginx@sha256:0123", Index: 2}, "liveness probe of %q", "liveness probe of #3 (nginx)"},
		{ContainerName{Index: 1}, "%v", "#2"},
		{ContainerName{Image: "registry.example/a/very-long-image-name-that-goes-on-and-on-and-on:v1.2.3"}, "%q", "#1 (very-long-image-name-that-goes-on-and-o…)"},
	} {
		if got := fmt.Sprintf(tc.format, tc.n); got != tc.want {
			t.Errorf("Sprintf(%q, %+v) = %q, want %q", tc.format, tc.n, got, tc.want)
		}
	}
}
