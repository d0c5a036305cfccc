package cli

import ucli "github.com/urfave/cli/v2"

func timelineCommand(env *runEnv) *ucli.Command {
	return &ucli.Command{Name: "timeline", Usage: "show each workload's worst-case lifecycle timeline", Hidden: true,
		Action: func(c *ucli.Context) error { return &exitError{ExitError, "timeline is not available yet"} }}
}
