package cli

import (
	"github.com/podlint/podlint/internal/lsp"
	"github.com/podlint/podlint/internal/textsafe"
	ucli "github.com/urfave/cli/v2"
)

// lspCommand is `podlint lsp`: the Language Server for editors, on
// standard input and output. Each file gets the settings `podlint check
// FILE` would use: these flags, then the configuration file found for it.
func lspCommand(env *runEnv) *ucli.Command {
	var flags []ucli.Flag
	for _, f := range append(commonFlags(), renderFlags()...) {
		switch f.Names()[0] {
		case "allow-empty", "stdin-filename", "output", "color":
			continue // about a report, which the server does not write
		}
		flags = append(flags, f)
	}
	return &ucli.Command{
		Name:  "lsp",
		Usage: "run the Language Server for editors (LSP over standard input and output)",
		Description: `Speaks the Language Server Protocol on standard input and output, for an
editor to start: diagnostics as you type (the findings podlint check reports
for the file, with the configuration check would find for it), the computed
timeline of a probe, hook or grace period on hover, and quick fixes and
suppression comments as code actions. Helm charts and kustomizations are
rendered when a file of theirs is saved. See docs/editors.md for the set-up
of Neovim, VS Code, Helix and Emacs.`,
		Flags: grouped(flags),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return &exitError{ExitError, "lsp takes no PATH: the editor sends the files"}
			}
			// Each folder gets the settings of `podlint check FOLDER` with
			// these flags (settings.Load, called by the server).
			engine := &lsp.Podlint{Chdir: true, Flags: *flagsOf(c), Env: env.settingsEnv("")}
			env.code = lsp.Serve(c.Context, env.stdin, env.stdout, lsp.Options{Engine: engine, Version: version(), Log: textsafe.LogWriter{W: env.stderr}})
			return nil
		},
	}
}
