package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"time"

	"github.com/podlint/podlint/internal/sibling"
	"github.com/podlint/podlint/internal/textsafe"
)

// A live cluster is read by a separate executable, podlint-observe
// (cmd/podlint-observe): reading a kubeconfig and authenticating as kubectl
// does takes client-go, whose package initialization podlint would
// otherwise pay on every check (docs/performance.md, "Start-up"). podlint
// starts it for the recording only; the --from files, the merge into the
// previous profile and check --observed stay in podlint.
//
// The child inherits standard input and standard error, as the in-process
// client did: a credential plugin may prompt on the terminal, and its
// messages and client-go's warnings reach the user. The request is the
// child's one argument after childFlag; the reply, one JSON childReply, is
// its standard output.

// ChildCommand is the executable's name, without the .exe of Windows:
// podlint looks for it in its own folder, where `go install
// github.com/podlint/podlint/cmd/...` and the release archives put it.
const ChildCommand = "podlint-observe"

// childFlag is the first argument of a child, and names the protocol
// version, so that a podlint-observe of another version refuses the
// request instead of misreading it.
const childFlag = "--podlint-observe-protocol=1"

// childRequest is what Request says of the cluster to read.
type childRequest struct {
	Context, Namespace string
	All                bool
	Watch, Timeout     time.Duration
}

// childReply is the recording, or the error that ended it.
type childReply struct {
	Profile *Profile `json:",omitempty"`
	Error   string   `json:",omitempty"`
}

// ChildLive is Request.Live in podlint: it starts podlint-observe beside
// this executable to record the cluster. An interrupt (Ctrl-C) that
// reaches podlint is passed on, so that a --watch ends and still writes
// what it recorded, as it did when podlint read the cluster itself.
func ChildLive(ctx context.Context, req Request) (*Profile, error) {
	exe, err := childExecutable()
	if err != nil {
		return nil, err
	}
	arg, err := json.Marshal(childRequest{Context: req.Context, Namespace: req.Namespace, All: req.All, Watch: req.Watch, Timeout: req.Timeout})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, childFlag, string(arg))
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", textsafe.Escape(exe), err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			// Where signals cannot be sent (Windows), the console's
			// Ctrl-C reaches the child itself.
			_ = cmd.Process.Signal(os.Interrupt)
		case <-done:
		}
	}()
	var reply childReply
	derr := json.NewDecoder(out).Decode(&reply)
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	switch {
	case derr == nil && reply.Error != "":
		return nil, errors.New(reply.Error)
	case derr == nil && reply.Profile != nil && werr == nil:
		return reply.Profile, nil
	case werr != nil:
		return nil, fmt.Errorf("%s ended without a recording (%v; its messages are above)", textsafe.Escape(exe), werr)
	case derr != nil:
		return nil, fmt.Errorf("%s: unreadable reply: %v", textsafe.Escape(exe), derr)
	default:
		return nil, fmt.Errorf("%s: a reply without a recording", textsafe.Escape(exe))
	}
}

// childExecutable is ChildCommand in the folder of this executable.
func childExecutable() (string, error) {
	exe, err := sibling.Path(ChildCommand)
	if err != nil {
		if exe == "" {
			return "", err
		}
		return "", fmt.Errorf("podlint observe reads a live cluster with %s, installed beside podlint, and %s cannot be used: %s; "+
			"install both with `go install github.com/podlint/podlint/cmd/...@VERSION`, or take both from a release archive (--from needs no cluster)",
			ChildCommand, textsafe.Escape(exe), textsafe.Escape(err.Error()))
	}
	return exe, nil
}

// ChildMain is the whole of podlint-observe: it records the cluster the
// request in args names with live (kubeconfig.Live) and writes the reply
// on stdout. Run by hand, it refuses.
func ChildMain(args []string, stdout, stderr io.Writer, live func(context.Context, Request) (*Profile, error)) int {
	if len(args) == 3 && args[1] != childFlag && strings.HasPrefix(args[1], "--podlint-observe-protocol=") {
		fmt.Fprintf(stderr, "%s: this %s is not of the version of the podlint that started it; install both from one release or go install\n", ChildCommand, ChildCommand)
		return 2
	}
	if len(args) != 3 || args[1] != childFlag {
		fmt.Fprintf(stderr, "%s reads a live cluster for podlint observe, which starts it; run podlint observe instead\n", ChildCommand)
		return 2
	}
	var cr childRequest
	var reply childReply
	if err := json.Unmarshal([]byte(args[2]), &cr); err != nil {
		reply.Error = fmt.Sprintf("%s: unreadable request: %v", ChildCommand, err)
	} else {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		p, err := live(ctx, Request{Context: cr.Context, Namespace: cr.Namespace, All: cr.All, Watch: cr.Watch, Timeout: cr.Timeout, Now: time.Now})
		stop()
		if err != nil {
			reply.Error = err.Error()
		}
		reply.Profile = p
	}
	if err := json.NewEncoder(stdout).Encode(reply); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", ChildCommand, err)
		return 1
	}
	return 0
}
