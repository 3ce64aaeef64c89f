package app

import (
	"github.com/spf13/cobra"
)

// NewCompletionCommand writes shell completion scripts.
func NewCompletionCommand(streams Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Write a shell completion script",
		Long: `Write a completion script for the shell to standard output, e.g.

  source <(drasim completion bash)
  drasim completion zsh > "${fpath[1]}/_drasim"
  drasim completion fish > ~/.config/fish/completions/drasim.fish`,
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"bash", "zsh", "fish"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(streams.Out, true)
			case "zsh":
				return root.GenZshCompletion(streams.Out)
			default:
				return root.GenFishCompletion(streams.Out, true)
			}
		},
	}
}
