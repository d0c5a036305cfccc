package cli

import (
	"flag"
	"fmt"

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
			engine := &lsp.Podlint{Chdir: true, Configure: func(path string) (*lsp.Config, error) {
				// The settings of `podlint check PATH` with the flags given
				// to lsp: a context whose only argument is path, below the
				// lsp command's.
				set := flag.NewFlagSet("lsp-file", flag.ContinueOnError)
				if err := set.Parse([]string{"--", path}); err != nil {
					return nil, err
				}
				fc := ucli.NewContext(c.App, set, c)
				s, err := loadSettings(fc, env, false)
				if err != nil {
					return nil, fmt.Errorf("%s", err.Error())
				}
				if err := s.renderSetup(fc); err != nil {
					return nil, fmt.Errorf("%s", err.Error())
				}
				return &lsp.Config{Analyzer: &s.an, Excludes: s.excludes}, nil
			}}
			env.code = lsp.Serve(c.Context, env.stdin, env.stdout, lsp.Options{Engine: engine, Version: version(), Log: textsafe.LogWriter{W: env.stderr}})
			return nil
		},
	}
}
