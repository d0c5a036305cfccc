package cli

import (
	"io"
	"log"

	"github.com/go-logr/logr/funcr"
	"github.com/podlint/podlint/internal/textsafe"
	"k8s.io/klog/v2"
)

// routeLibraryLogs sends what the libraries podlint links print through a
// logger (Helm's warnings through Go's log package, which log/slog's
// default handler also uses; klog, linked through the Kubernetes
// libraries) to stderr as escaped lines: they quote values keys, template
// names and file names from the repository being checked.
func routeLibraryLogs(stderr io.Writer) {
	w := textsafe.LogWriter{W: stderr, Prefix: "podlint: "}
	log.SetOutput(w)
	log.SetFlags(0)
	log.SetPrefix("")
	klog.SetLogger(funcr.New(func(prefix, args string) {
		if prefix != "" {
			args = prefix + ": " + args
		}
		w.Write([]byte(args))
	}, funcr.Options{}))
}
