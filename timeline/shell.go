package timeline

import (
	"strings"

	"github.com/podlint/podlint/internal/shellread"
	corev1 "k8s.io/api/core/v1"
)

// Reading what an exec command states about its own duration: the preStop
// model and the hook rules both need "how long does this exec hook sleep for
// certain", and a guess that counts a conditional sleep would report a
// finding that is not there. The reading itself is shellread's, shared with
// the rules.

// ContainerEnv is what a shell in the container knows of its environment
// from the manifest: the literal env values (a later entry wins); an entry
// with valueFrom or a $(VAR) reference is unknown, and envFrom may set any
// other name.
func ContainerEnv(c *corev1.Container) shellread.Env {
	var e shellread.Env
	if c == nil {
		return e
	}
	for _, v := range c.Env {
		if v.ValueFrom != nil || strings.Contains(v.Value, "$(") {
			e.Unknown(v.Name)
			continue
		}
		e.Set(v.Name, v.Value)
	}
	e.Open = len(c.EnvFrom) > 0
	return e
}

// ExecSleep reads an exec command of container c: the time it certainly
// sleeps and the bound a timeout(1) around it puts on it (see
// shellread.StatedSleep).
func ExecSleep(cmd []string, c *corev1.Container) shellread.Sleep {
	return shellread.StatedSleep(cmd, ContainerEnv(c))
}

// StatedSleep reads the time an exec command at least spends sleeping,
// with no variable known: ok=false when nothing is stated. +Inf stands for
// `sleep infinity`.
func StatedSleep(cmd []string) (seconds float64, text string, ok bool) {
	s := shellread.StatedSleep(cmd, shellread.Env{})
	return s.Min, s.Text, s.OK
}
