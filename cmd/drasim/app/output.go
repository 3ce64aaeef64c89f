package app

import (
	"strings"

	"github.com/spf13/cobra"
)

// formatsAnnotation lists, on a command, the -o formats it offers.
const formatsAnnotation = "drasim.io/formats"

// setFormats declares the -o formats cmd offers: its help lists them and
// any other is a usage error before the command runs.
func setFormats(cmd *cobra.Command, formats ...string) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[formatsAnnotation] = strings.Join(formats, ",")
	return cmd
}

// formatsOf returns the formats cmd declared, or nil.
func formatsOf(cmd *cobra.Command) []string {
	if f := cmd.Annotations[formatsAnnotation]; f != "" {
		return strings.Split(f, ",")
	}
	return nil
}

// checkFormat rejects a format the command does not offer (see setFormats).
func checkFormat(cmd *cobra.Command, format string) error {
	if allowed := formatsOf(cmd); allowed != nil {
		return checkOutput(format, allowed...)
	}
	return nil
}

// outputUsage is the -o help of cmd.
func outputUsage(cmd *cobra.Command) string {
	if allowed := formatsOf(cmd); allowed != nil {
		return "output format: " + strings.Join(allowed, ", ")
	}
	return "output format; each command's help lists the formats it offers"
}

// checkOutput rejects an output format that is not allowed before any work
// is done.
func checkOutput(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usageErrorf("invalid output format %q for this command: use one of %v", format, allowed)
}
