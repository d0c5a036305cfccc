package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/textsafe"
)

// githubLimit is how many annotations of one type (error, warning, notice)
// GitHub Actions shows per step; the rest are dropped silently (and a job
// shows at most 50 in total). The github format still prints every finding
// so the log is complete, says so in its summary line when the limit is
// exceeded, and leaves the complete, browsable channel to SARIF uploaded to
// code scanning.
const githubLimit = 10

// githubCommand maps a severity to a workflow command; GitHub has no
// "info" annotation, "notice" is the closest.
func githubCommand(s finding.Severity) string {
	switch s {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	}
	return "notice"
}

// writeGitHub prints one workflow command per finding:
//
//	::error file=deploy/app.yaml,line=12,col=9,title=[PL101] liveness-kills-before-ready::liveness probe kills …
//
// Paths are relative to Options.SrcRoot, which the CLI should set to the
// repository root (the working directory in a normal workflow), because
// GitHub matches annotation files against the repository tree. Findings
// read from stdin carry no file property: there is nothing to attach them
// to, and GitHub shows them on the run summary. Related locations become
// extra lines of the message, which GitHub renders as a multi-line
// annotation.
func writeGitHub(buf sink, res *finding.Result, opts Options) error {
	counts := map[string]int{}
	for i := range res.Len() {
		v := res.At(i)
		f := &v
		cmd := githubCommand(f.Severity)
		counts[cmd]++
		var props []string
		if !isStdin(f.File) {
			props = append(props, "file="+escapeProperty(textsafe.Escape(relPath(opts.SrcRoot, f.File))))
			if f.Line >= 1 {
				props = append(props, "line="+strconv.Itoa(f.Line))
				if f.Column >= 1 {
					props = append(props, "col="+strconv.Itoa(f.Column))
				}
			}
		}
		props = append(props, "title="+escapeProperty(fmt.Sprintf("[%s] %s", f.RuleID, f.RuleName)))
		// Each part is escaped on its own (a newline in a message, a detail
		// or a name becomes a visible \n); the lines between the headline,
		// the detail and related locations are the only real line breaks,
		// which escapeData then encodes.
		msg := textsafe.Escape(f.Headline())
		if d := f.Explanation(); d != "" {
			msg += "\n" + textsafe.Escape(d)
		}
		for _, r := range f.Related {
			msg += "\n" + position(relPath(opts.SrcRoot, r.File), r.Line, r.Column) + ": " + textsafe.Escape(r.Message)
		}
		fmt.Fprintf(buf, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(msg))
	}
	line := "podlint: " + summaryLine(res)
	var over []string
	for _, cmd := range []string{"error", "warning", "notice"} {
		if counts[cmd] > githubLimit {
			over = append(over, cmd)
		}
	}
	if len(over) > 0 {
		line += fmt.Sprintf(" (GitHub shows only the first %d %s annotations per step; upload the sarif output to code scanning to see all)",
			githubLimit, strings.Join(over, "/"))
	}
	// A plain line, not a command: GitHub does not unescape it, so it is
	// printed as is.
	buf.WriteString(line)
	buf.WriteByte('\n')
	return nil
}

// escapeData escapes a workflow command's message the way the
// @actions/core toolkit does; without it a "%0A" in a message would turn
// into a line break and a newline would end the command.
func escapeData(s string) string {
	s = strings.ReplaceAll(s, "%", "%25")
	s = strings.ReplaceAll(s, "\r", "%0D")
	return strings.ReplaceAll(s, "\n", "%0A")
}

// escapeProperty additionally escapes ":" and ",", which separate the
// command from its message and the properties from each other.
func escapeProperty(s string) string {
	s = escapeData(s)
	s = strings.ReplaceAll(s, ":", "%3A")
	return strings.ReplaceAll(s, ",", "%2C")
}
