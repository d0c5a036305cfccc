package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"
)

// Completion scripts drive urfave/cli's hidden --generate-bash-completion
// flag, which lists commands and flags for the word being completed.
const bashCompletion = `# podlint bash completion; add to ~/.bashrc: source <(podlint completion bash)
_podlint_complete() {
  local cur opts=""
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [[ "$cur" == -* ]]; then
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  elif [[ $COMP_CWORD -eq 1 ]]; then
    opts=$("${COMP_WORDS[0]}" --generate-bash-completion 2>/dev/null)
  elif [[ "${COMP_WORDS[1]}" == completion ]]; then
    opts="bash zsh fish"
  fi
  # Other words after a command are paths: complete file names.
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  if [[ ${#COMPREPLY[@]} -eq 0 && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -f -- "${cur}"))
  fi
}
complete -o default -F _podlint_complete podlint
`

const zshCompletion = `#compdef podlint
# podlint zsh completion; add to ~/.zshrc: source <(podlint completion zsh)
_podlint() {
  local -a opts
  local cur="${words[-1]}"
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} "$cur" --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ -n "${opts[1]}" ]]; then
    _describe 'podlint' opts
  else
    _files
  fi
}
compdef _podlint podlint
`

const fishCompletion = `# podlint fish completion; save as ~/.config/fish/completions/podlint.fish
function __podlint_complete
    set -l args (commandline -opc)
    set -l cur (commandline -ct)
    if string match -q -- '-*' $cur
        $args $cur --generate-bash-completion 2>/dev/null
    else
        $args --generate-bash-completion 2>/dev/null
    end
end
complete -c podlint -f -a '(__podlint_complete)'
complete -c podlint -F -n 'not string match -q -- "-*" (commandline -ct)'
`

func completionCommand(env *runEnv) *ucli.Command {
	return &ucli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Action: func(c *ucli.Context) error {
			scripts := map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}
			s, ok := scripts[c.Args().First()]
			if !ok || c.NArg() != 1 {
				return &exitError{ExitError, "completion needs one of: bash, zsh, fish"}
			}
			fmt.Fprint(env.stdout, s)
			return nil
		},
	}
}
