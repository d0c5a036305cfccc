package render

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/internal/sibling"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
)

// Helm's engine cannot be cancelled and Go cannot stop a goroutine, so a
// chart that loops, recurses or allocates without end would take the whole
// run with it. Each root is therefore rendered by a child process that the
// parent can bound and kill: the render executable installed beside
// podlint (RenderCommand; a process that links the engine itself, such as
// a test binary, starts its own executable), with ChildEnv set. It reads
// one childRequest on standard input, renders that root only, and writes
// the Rendered result (documents, provenance, problems; never findings) on
// standard output.

// RenderCommand is the render executable's name (cmd/podlint-render),
// without the .exe of Windows: podlint looks for it in its own folder,
// where `go install github.com/podlint/podlint/cmd/...` and the release
// archives put it.
const RenderCommand = "podlint-render"

// ChildEnv marks a process as a render child; its value is the protocol
// version, so a podlint of another version never misreads a request.
const ChildEnv = "PODLINT_RENDER_CHILD"

const childProtocol = "1"

// Child exit codes the parent tells apart from a crash.
const (
	childExitCPU        = 3 // the CPU-time limit was reached (SIGXCPU)
	childExitBadRequest = 4
	childExitMemory     = 5 // watchMemory saw the memory limit passed
)

// Limits bound the child that renders one root.
type Limits struct {
	// CPU is the CPU time the child may use, all threads together; the
	// kernel stops it there (RLIMIT_CPU), however busy the machine is.
	CPU time.Duration
	// Memory bounds the child's heap and other anonymous memory
	// (RLIMIT_DATA on Linux).
	Memory int64
	// Wall is how long the child may wait without running (watchChild):
	// what CPU time does not see. It never stops a child that computes,
	// however slowly a busy machine lets it.
	Wall time.Duration
	// Output bounds the child's reply: rendered documents, their
	// templates and patches.
	Output int64
}

// DefaultLimits cost a hostile chart half a minute of CPU at most. Real
// charts render in well under a second, but an operator's kustomization
// with a few multi-MB CRDs takes kustomize build itself 5 to 10 s of CPU
// time on a loaded 2-core runner, and podlint-render as much and 400 MiB
// (docs/performance.md): such roots pass with room to spare, and the run's
// budget (DefaultBudget) bounds what many roots cost together.
var DefaultLimits = Limits{CPU: 30 * time.Second, Memory: 1 << 30, Wall: 30 * time.Second, Output: 64 << 20}

// IsChild reports whether this process was started to render one root.
func IsChild() bool { return os.Getenv(ChildEnv) != "" }

// childRequest is what the parent asks of a child.
type childRequest struct {
	Protocol string
	Kind     string // manifest.RenderHelm or manifest.RenderKustomize
	Root     string
	// Repo is the repository root that bounds what rendering reads
	// (manifest.Source.Root).
	Repo   string
	Helm   HelmOptions
	Limits Limits
	// Readable are the folders and files the child may read when the OS
	// can confine it: the repository of the root and the values files.
	Readable []string
	// Untracked are the --read-untracked patterns: files git does not
	// track that the workflow named (safefile.SetUntracked).
	Untracked []string
	// Edited is the text podlint fix gave files of the root, by absolute
	// path (manifest.Source.Edited): read instead of the file on disk.
	Edited map[string][]byte
	// PanicOnNetwork makes a name lookup a crash instead of an error, so
	// that a test sees a library that brings its own HTTP transport
	// whatever it does with the error (isolateNetwork).
	PanicOnNetwork bool
	// WaitForTest makes the child wait this long before rendering, using
	// no CPU: a child that waits, for the tests of the wall-clock limit.
	WaitForTest time.Duration
}

// ChildMain is the whole life of a render child. cli.Run calls it when
// IsChild, and so does the TestMain of every package whose tests render
// (in `go test`, os.Executable is the test binary).
func ChildMain(stdin io.Reader, stdout, stderr io.Writer) int {
	if linked == nil {
		fmt.Fprintf(stderr, "podlint: this executable does not render (it does not link render/engine); podlint renders with %s\n", RenderCommand)
		return childExitBadRequest
	}
	if v := os.Getenv(ChildEnv); v != childProtocol {
		fmt.Fprintf(stderr, "podlint: render child protocol %q, want %q\n", v, childProtocol)
		return childExitBadRequest
	}
	var req childRequest
	// Edited text travels as base64: 4/3 of maxEdited on top of the rest.
	if err := json.NewDecoder(io.LimitReader(stdin, 1<<20+2*maxEdited)).Decode(&req); err != nil || req.Protocol != childProtocol {
		fmt.Fprintf(stderr, "podlint: bad render request: %v\n", err)
		return childExitBadRequest
	}
	// Limits first, then confinement: nothing of the root has been read
	// yet, and from here on it is untrusted input.
	if err := applyLimits(req.Limits); err != nil {
		fmt.Fprintf(stderr, "podlint: render limits: %v\n", err)
		return childExitBadRequest
	}
	// From here on the parent hears from the child while it renders:
	// beats for the wall-clock and (on Windows) CPU limits, log records.
	errOut := &syncWriter{w: stderr}
	watch(req.Limits, errOut)
	isolateNetwork(req.PanicOnNetwork)
	if err := safefile.SetUntracked(req.Untracked); err != nil {
		fmt.Fprintf(stderr, "podlint: bad render request: %v\n", err)
		return childExitBadRequest
	}
	// Helm's warnings (a values key it cannot merge) go to the parent,
	// one escaped record a line, which passes them to its own logger.
	log.SetOutput(textsafe.LogWriter{W: errOut, Prefix: childLogPrefix})
	log.SetFlags(0)
	log.SetPrefix("")
	// kustomize clones a resource that looks like a git URL with the git
	// found on PATH; the child has no PATH, so nothing is found to run.
	os.Unsetenv("PATH")
	// Every base, patch and values file rendering reads is inside the
	// repository (safefile refuses the rest), so that is all the child
	// needs to read, with the values files the user named.
	confine(req.Readable)

	edited = req.Edited
	if req.WaitForTest > 0 {
		time.Sleep(req.WaitForTest)
	}
	r := renderRoot(req.Kind, req.Root, req.Repo, req.Helm)
	w := r.wire()
	w.Stats = selfStats()
	if err := gob.NewEncoder(stdout).Encode(w); err != nil {
		fmt.Fprintf(stderr, "podlint: writing the rendered output: %v\n", err)
		return 1
	}
	return 0
}

// renderRoot renders one root in this process. A panic inside Helm or
// kustomize becomes a problem at the root's file.
func renderRoot(kind, root, repo string, ho HelmOptions) (r *Output) {
	// Helm and kustomize are large libraries fed whatever a repository
	// holds; a panic in one of them must not take the other inputs down.
	src := manifest.Source{Path: root, Render: kind}
	defer func() {
		if p := recover(); p != nil {
			r = crashed(src, p)
		}
	}()
	switch kind {
	case manifest.RenderHelm:
		return RenderChart(root, ho)
	case manifest.RenderKustomize:
		return renderKustomization(root, repo)
	}
	return &Output{Problems: []Problem{{File: root, Line: 1, Column: 1, Message: fmt.Sprintf("unknown render kind %q", kind)}}}
}

// childUse is what a render process used: its CPU time (user and
// system, as the kernel counts it), and whether it was stopped at its CPU
// limit.
type childUse struct {
	cpu    time.Duration
	cpuHit bool
	stats  childStats
}

// selfStats measures this render child's collector.
func selfStats() childStats {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	pct := debug.SetGCPercent(-1)
	debug.SetGCPercent(pct)
	return childStats{GCCycles: s[0].Value.Uint64(), GCPercent: pct}
}

// renderInChild renders src in a child process within lim.
func renderInChild(src manifest.Source, ho HelmOptions, lim Limits, test testHooks) (*Output, childUse, error) {
	if IsChild() {
		// A binary that links podlint without dispatching to ChildMain
		// (a test binary without the TestMain of main_test.go) would
		// otherwise start itself again and again.
		return nil, childUse{}, fmt.Errorf("%s: %s is set, so this process is a render child and renders nothing itself; "+
			"the executable does not dispatch to render.ChildMain", src.Path, ChildEnv)
	}
	exe, err := childExecutable()
	if err != nil {
		return nil, childUse{}, fmt.Errorf("%s: cannot render: %w", src.Path, err)
	}
	size := 0
	for _, e := range src.Edited {
		size += len(e)
	}
	if size > maxEdited {
		return nil, childUse{}, fmt.Errorf("%s: the edited files total %s, more than the %s a fix is verified with", src.Path, sizeText(int64(size)), sizeText(maxEdited))
	}
	req, err := json.Marshal(childRequest{Protocol: childProtocol, Kind: src.Render, Root: src.Path, Repo: src.Root, Helm: ho, Limits: lim,
		Readable: readable(src, ho), Untracked: safefile.Untracked(), Edited: src.Edited, PanicOnNetwork: test.panicOnNetwork, WaitForTest: test.waitForTest})
	if err != nil {
		return nil, childUse{}, err
	}
	cmd := exec.Command(exe)
	// Nothing of the environment: no secret of the CI runner can be read
	// back through /proc/self/environ, and no PATH to find programs on.
	cmd.Env = []string{ChildEnv + "=" + childProtocol}
	cmd.Stdin = bytes.NewReader(req)
	var stderr capped
	stderr.max = 16 << 10
	beats := &beatReader{next: &stderr}
	cmd.Stderr = beats
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = childProcAttr()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, childUse{}, err
	}
	if err := cmd.Start(); err != nil {
		return nil, childUse{}, fmt.Errorf("%s: cannot start the render process: %w", src.Path, err)
	}
	stop := watchChild(cmd.Process, beats, lim)
	var reply bytes.Buffer
	n, _ := io.Copy(&reply, io.LimitReader(stdout, lim.Output+1))
	overOutput := n > lim.Output
	if overOutput {
		_ = cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	stopped := stop()
	beats.flush()
	forwardLogs(stderr.String())
	var use childUse
	if ps := cmd.ProcessState; ps != nil {
		use.cpu = ps.UserTime() + ps.SystemTime()
	}
	limit := ""
	switch {
	case overOutput:
		limit = "output"
	case waitErr == nil:
		// Finished, even if the watch stopped it while it was exiting.
	case stopped == "cpu" || cpuExhausted(cmd.ProcessState, lim.CPU):
		limit, use.cpuHit = "cpu", true
	case stopped == "wall":
		limit = "wall"
	case cmd.ProcessState.ExitCode() == childExitMemory || outOfMemory(stderr.String()):
		limit = "memory"
	}
	if limit != "" {
		return &Output{Problems: []Problem{limitProblem(src, limit, lim)}}, use, nil
	}
	if waitErr != nil && cmd.ProcessState.ExitCode() == childExitBadRequest {
		// Not the root's doing: an executable that does not render, or
		// one of another version of podlint.
		return nil, use, fmt.Errorf("%s: cannot render: %s refused the request of this podlint (%s); install podlint and %s of the same version side by side",
			src.Path, textsafe.Escape(exe), textsafe.Escape(firstLine(stderr.String())), RenderCommand)
	}
	if waitErr != nil {
		return crashedChild(src, cmd.ProcessState), use, nil
	}
	var w wireRendered
	if err := gob.NewDecoder(&reply).Decode(&w); err != nil {
		return crashedChild(src, cmd.ProcessState), use, nil
	}
	use.stats = w.Stats
	r := w.rendered()
	capProblems(src, r)
	return r, use, nil
}

// watchChild stops p when its beats (watch) show it waited for lim.Wall
// without running, or used more CPU time than lim.CPU allows where no
// kernel stopped it (Windows). The machine's load never decides: a child
// that runs slowly on a busy machine is still running. stop ends the watch
// and says what it stopped the child for ("wall", "cpu" or "").
func watchChild(p *os.Process, beats *beatReader, lim Limits) (stop func() string) {
	done := make(chan struct{})
	var why atomic.Value
	why.Store("")
	started := time.Now()
	// RLIMIT_CPU counts whole seconds and kills at the hard limit a
	// second later: past that, the kernel did not stop the child.
	maxCPU := lim.CPU.Truncate(time.Second) + 3*time.Second
	go func() {
		t := time.NewTicker(beatEvery(lim.Wall))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				cpu, busy := beats.state()
				if busy.IsZero() {
					busy = started
				}
				switch {
				case cpu > maxCPU:
					why.Store("cpu")
				case now.Sub(busy) > lim.Wall:
					why.Store("wall")
				default:
					continue
				}
				_ = p.Kill()
				return
			}
		}
	}()
	return func() string {
		close(done)
		return why.Load().(string)
	}
}

// beatReader takes the child's beat lines out of its standard error and
// passes the rest on.
type beatReader struct {
	next    io.Writer
	mu      sync.Mutex
	partial []byte
	cpu     time.Duration
	busy    time.Time // when a beat last said the child ran
}

func (b *beatReader) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.partial = append(b.partial, p...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			break
		}
		line := b.partial[:i+1]
		if rest, ok := bytes.CutPrefix(line, []byte(beatPrefix)); ok {
			var ns int64
			var busy bool
			if _, err := fmt.Sscanf(string(rest), "%d %t", &ns, &busy); err == nil {
				b.cpu = time.Duration(ns)
				if busy {
					b.busy = time.Now()
				}
			}
		} else {
			_, _ = b.next.Write(line)
		}
		b.partial = b.partial[i+1:]
	}
	// A line without end (a crash's output cut short) is passed on
	// rather than held without bound.
	if len(b.partial) > 64<<10 {
		_, _ = b.next.Write(b.partial)
		b.partial = nil
	}
	b.partial = append([]byte(nil), b.partial...)
	return n, nil
}

// flush passes on what is left of a last line without end.
func (b *beatReader) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, _ = b.next.Write(b.partial)
	b.partial = nil
}

// state is the CPU time of the last beat and when a beat last said the
// child ran.
func (b *beatReader) state() (time.Duration, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cpu, b.busy
}

// maxProblems bounds the problems one root reports. Each is a finding the
// user reads, and each costs the parent a look at its file (the line to
// quote, suppression comments): a kustomization listing 100 000 missing
// entries must not cost 100 000 passes over itself.
const maxProblems = 200

func capProblems(src manifest.Source, r *Output) {
	if len(r.Problems) <= maxProblems {
		return
	}
	n := len(r.Problems) - maxProblems
	r.Problems = append(r.Problems[:maxProblems:maxProblems], Problem{File: rootFile(src), Line: 1, Column: 1,
		Message: fmt.Sprintf("%d more problems of this root were not reported", n),
		Detail:  fmt.Sprintf("podlint reports at most %d problems per chart or kustomization; fix the ones above and lint again.", maxProblems)})
}

// outOfMemory recognizes the Go runtime's own fatal errors, which under
// the kernel's memory bound mean it was refused memory: "out of memory",
// a recursion past the stack bound derived from the memory limit, or a
// crash inside the runtime when a mapping failed. A panic in the renderer
// is no fatal error: the child recovers it and reports it as a problem.
func outOfMemory(stderr string) bool {
	// "pthread_create failed": in a cgo build the C library cannot map a
	// new thread's stack once the data limit is reached, and aborts.
	for _, s := range []string{"fatal error:", "goroutine stack exceeds", "SIGSEGV: segmentation violation", "pthread_create failed"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// limitProblem is the chart-render-error of a root whose rendering hit a
// limit: which one, and the flag and configuration key that raise it.
func limitProblem(src manifest.Source, limit string, lim Limits) Problem {
	what := "chart"
	if src.Render == manifest.RenderKustomize {
		what = "kustomization"
	}
	var head, flag string
	switch limit {
	case "cpu":
		head, flag = fmt.Sprintf("rendering the %s used more than %s of CPU time, so it was stopped", what, lim.CPU), "render-cpu"
	case "memory":
		head, flag = fmt.Sprintf("rendering the %s needed more than %s of memory, so it was stopped", what, sizeText(lim.Memory)), "render-memory"
	case "wall":
		// Not a limit a large root reaches: rendering computes, and the
		// CPU-time limit bounds that however busy the machine is.
		return Problem{File: rootFile(src), Line: 1, Column: 1,
			Message: fmt.Sprintf("rendering the %s waited %s without running, so it was stopped", what, lim.Wall),
			Detail: fmt.Sprintf("Nothing of this %s was linted. The render process neither computed nor was ready to compute for %s: "+
				"it was waiting, for a file on a slow or hung file system or for something that never came, which rendering a %s does not do. "+
				"If the file system is that slow, raise --render-timeout on the command line "+
				"(a .podlint.yaml may only lower it, since it can come with the pull request being checked).", what, lim.Wall, what)}
	default:
		head, flag = fmt.Sprintf("rendering the %s produced more than %s of output, so it was stopped", what, sizeText(lim.Output)), "render-max-output"
	}
	return Problem{File: rootFile(src), Line: 1, Column: 1, Message: head,
		Detail: fmt.Sprintf("Nothing of this %s was linted. A template or kustomization that recurses, repeats or expands without end "+
			"(tpl calling itself, include chains, sprig repeat or until, YAML aliases, archives that unpack to gigabytes, "+
			"overlays that include a base many times) never finishes or exhausts the CI runner; podlint renders each root "+
			"in a separate process with limits. If the %s is legitimately this large, raise --%s on the command line "+
			"(a .podlint.yaml may only lower it, since it can come with the pull request being checked).",
			what, what, flag)}
}

func crashedChild(src manifest.Source, ps *os.ProcessState) *Output {
	// The child's standard error may hold text from the chart (a panic's
	// value), so it is not quoted; the exit status is podlint's own.
	status := "an unknown status"
	if ps != nil {
		status = ps.String()
	}
	return &Output{Problems: []Problem{{File: rootFile(src), Line: 1, Column: 1,
		Message: "rendering crashed, so nothing of this root was linted",
		Detail:  fmt.Sprintf("The render process ended with %s. The other inputs were still linted. Please report this bug with the chart or kustomization.", status)}}}
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readable lists what the child of a root needs to read: the repository
// root discovery found for the path given (src.Root: kustomize bases sit
// beside the overlay, at ../base), the repository of a configuration that
// names values files, and the values files the user named, which may be
// anywhere.
func readable(src manifest.Source, ho HelmOptions) []string {
	repo := src.Root
	if repo == "" {
		repo, _ = safefile.RepoRoot(src.Path)
	}
	if repo == "" {
		repo = src.Path
	}
	out := []string{absPath(repo)}
	// The git index that says which files of the repository the child may
	// read: a worktree or submodule keeps it outside the repository.
	if real, err := filepath.EvalSymlinks(absPath(repo)); err == nil {
		out = append(out, safefile.IndexPaths(real)...)
	}
	if ho.ConfigRoot != "" {
		out = append(out, absPath(ho.ConfigRoot))
		if real, err := filepath.EvalSymlinks(absPath(ho.ConfigRoot)); err == nil {
			out = append(out, safefile.IndexPaths(real)...)
		}
	}
	for _, v := range ho.Values {
		out = append(out, absPath(v))
	}
	return out
}

// childLogPrefix starts each line of the child's stderr that is a record
// of the libraries' logger, already escaped by the child.
const childLogPrefix = "podlint-render-log: "

// forwardLogs passes the child's log records to this process's logger
// (internal/cli routes it to stderr, escaped again); the rest of the
// child's stderr, such as a runtime crash, is podlint's own business.
func forwardLogs(stderr string) {
	for _, l := range strings.Split(stderr, "\n") {
		if rec, ok := strings.CutPrefix(l, childLogPrefix); ok {
			log.Print(rec)
		}
	}
}

// capped keeps the first and about the last max bytes written to it: the
// Go runtime's fatal error comes after whatever the libraries logged, and
// is followed by a traceback of every goroutine, which can be longer than
// max.
type capped struct {
	head, buf []byte
	max       int
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := c.max - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > c.max {
		p = p[len(p)-c.max:]
	}
	c.buf = append(c.buf, p...)
	if len(c.buf) > 2*c.max {
		c.buf = append([]byte(nil), c.buf[len(c.buf)-c.max:]...)
	}
	return n, nil
}

func (c *capped) String() string { return string(c.head) + string(c.buf) }

var errNetwork = errors.New("podlint never uses the network while rendering; vendor the file into the repository")

// childExecutable is the program that renders a root: this process's own
// executable when it renders itself (Link), else RenderCommand in the
// folder of this executable (links resolved, so that a podlint linked
// into a bin folder finds the one installed with it).
func childExecutable() (string, error) {
	if linked != nil {
		return os.Executable()
	}
	exe, err := sibling.Path(RenderCommand)
	if err != nil {
		if exe == "" {
			return "", err
		}
		return "", fmt.Errorf("podlint renders Helm charts and kustomizations with %s, installed beside it, and %s cannot be used: %s; "+
			"install both with `go install github.com/podlint/podlint/cmd/...@VERSION`, or take both from a release archive",
			RenderCommand, textsafe.Escape(exe), textsafe.Escape(err.Error()))
	}
	return exe, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
