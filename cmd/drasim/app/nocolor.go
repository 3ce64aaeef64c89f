package app

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// noColorFlag is deprecated: drasim has never printed colors, so the flag
// never did anything. It stays accepted, hidden from the help, so that
// scripts and config files that pass it keep working.
const noColorFlag = "no-color"

// addNoColor adds the deprecated --no-color to the global flags. Its value
// is read by nothing.
func addNoColor(pf *pflag.FlagSet) {
	pf.Bool(noColorFlag, false, "deprecated: drasim prints no colors; the flag does nothing")
	// MarkHidden cannot fail on a flag just added. pflag's own
	// MarkDeprecated is not used: cobra prints its notice on the command's
	// output stream, which is standard output (the report, -o json).
	_ = pf.MarkHidden(noColorFlag)
}

// warnNoColor tells, on standard error, a user who gave --no-color on the
// command line that it does nothing.
func warnNoColor(cmd *cobra.Command) {
	if f := cmd.Flags().Lookup(noColorFlag); f != nil && f.Changed {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: --%s is deprecated and does nothing: drasim prints no colors\n", noColorFlag)
	}
}
