package cli

import (
	"fmt"
	"strings"

	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/report"

	ucli "github.com/urfave/cli/v2"
)

// Completion scripts drive urfave/cli's hidden --generate-bash-completion
// flag, which lists commands and flags for the word being completed.
const bashCompletion = `# podlint bash completion; add to ~/.bashrc: source <(podlint completion bash)
_podlint_complete() {
  local cur opts=""
  cur="${COMP_WORDS[COMP_CWORD]}"
  local prev="${COMP_WORDS[COMP_CWORD-1]}"
  local values
  values=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[1]}" "$prev" 2>/dev/null)
  if [[ -n "$values" && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "${values}" -- "${cur}"))
    return
  fi
  if [[ "$cur" == -* ]]; then
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  elif [[ $COMP_CWORD -eq 1 ]]; then
    opts=$("${COMP_WORDS[0]}" --generate-bash-completion 2>/dev/null)
  elif [[ "${COMP_WORDS[1]}" == completion ]]; then
    opts="bash zsh fish powershell"
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
  local values
  values=$(${words[1]} __complete "${words[2]}" "${words[-2]}" 2>/dev/null)
  if [[ -n "$values" && "$cur" != -* ]]; then
    opts=("${(@f)values}")
    _describe 'podlint' opts
    return
  fi
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
    set -l values (podlint __complete $args[2] $args[-1] 2>/dev/null)
    if test (count $values) -gt 0; and not string match -q -- '-*' $cur
        printf '%s\n' $values
        return
    end
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
		Usage:     "print a shell completion script for bash, zsh, fish or powershell",
		ArgsUsage: "bash|zsh|fish|powershell",
		Action: func(c *ucli.Context) error {
			scripts := map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion, "powershell": powershellCompletion}
			s, ok := scripts[c.Args().First()]
			if !ok || c.NArg() != 1 {
				return &exitError{ExitError, "completion needs one of: bash, zsh, fish, powershell" + settings.DidYouMean(c.Args().First(), []string{"bash", "zsh", "fish", "powershell"})}
			}
			fmt.Fprint(env.stdout, s)
			return nil
		},
	}
}

// powershellCompletion completes commands, flags and flag values through
// the same hidden commands as the other shells.
const powershellCompletion = `# podlint PowerShell completion; add to $PROFILE: podlint completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName podlint -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
    if ($wordToComplete -eq '') { $words += '' }
    $cmd = if ($words.Count -gt 2) { $words[1] } else { '' }
    $prev = if ($words.Count -ge 2) { $words[$words.Count - 2] } else { '' }
    $candidates = @()
    if ($wordToComplete -notlike '-*') {
        $candidates = @(& podlint __complete $cmd $prev 2>$null)
    }
    if ($candidates.Count -eq 0) {
        $args = @($words[1..($words.Count - 2)] | Where-Object { $_ -ne '' })
        if ($wordToComplete -like '-*') { $args += $wordToComplete }
        $candidates = @(& podlint @args --generate-bash-completion 2>$null)
    }
    $candidates | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
    }
}
`

// completeCommand is the hidden command the completion scripts call to
// complete a flag's value: `podlint __complete check -f` prints the
// formats, `podlint __complete check --enable` the rule IDs and names,
// `podlint __complete rules rules` the rules. It prints nothing when the
// previous word takes no value, and the scripts fall back to flags and
// file names.
func completeCommand(env *runEnv) *ucli.Command {
	return &ucli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *ucli.Context) error {
			for _, v := range completeValues(c.Args().Get(0), c.Args().Get(1)) {
				fmt.Fprintln(env.stdout, v)
			}
			return nil
		},
	}
}

func completeValues(command, prev string) []string {
	levels := []string{"error", "warning", "info"}
	switch strings.TrimLeft(prev, "-") {
	case "f", "format":
		if command == "rules" {
			return rulesFormats
		}
		if command == "timeline" {
			return timelineFormats
		}
		return report.Formats
	case "enable", "disable":
		return settings.RuleNames()
	case "fail-on":
		return append(levels, "never")
	case "show":
		return levels
	case "color":
		return []string{"auto", "always", "never"}
	case "rules":
		if command == "rules" {
			return settings.RuleNames()
		}
	case "completion":
		return []string{"bash", "zsh", "fish", "powershell"}
	}
	return nil
}
