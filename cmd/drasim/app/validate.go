package app

import (
	"errors"

	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/validate"
	"github.com/spf13/cobra"
)

type validateFlags struct {
	input inputFlags
}

// NewValidateCommand checks a snapshot for everything the API server would
// reject and everything that makes it inconsistent.
func NewValidateCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &validateFlags{}
	cmd := &cobra.Command{
		Use:   "validate [-f SNAPSHOT]...",
		Short: "Check a snapshot for invalid or inconsistent objects",
		Long: `Check a snapshot for what the API server would reject and what makes it
inconsistent: required fields and names, ResourceSlice pools, device names,
counters and limits, CEL selectors (compiled in the DRA CEL environment), and
references between claims, classes, templates and pods. Every message names the
file, the document, the object and the field.

Without -f, validates the embedded demo.

Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage error.`,
		Example: `  drasim validate -f cluster-dump.yaml
  kubectl get nodes,pods,resourceslices,resourceclaims,deviceclasses -A -o yaml | drasim validate -f -`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runValidate(streams, g, f) },
	}
	f.input.add(cmd.Flags())
	return setFormats(cmd, validateFormats().names()...)
}

func runValidate(streams Streams, g *GlobalOptions, f *validateFlags) error {
	var res *load.Result
	var err error
	if len(f.input.Files) == 0 {
		res, err = loadDemo(streams, &f.input, load.Options{})
		if res == nil {
			return err
		}
	} else {
		res, err = load.Load(f.input.Files, load.Options{Strict: f.input.Strict, Stdin: streams.In, KeepControllers: false})
	}
	var loadErrs load.Errors
	if err != nil && !errors.As(err, &loadErrs) {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	var files []string
	var warnings []load.Warning
	if res != nil {
		files, warnings = res.Files, res.Warnings
	}
	diags := validate.LoadDiagnostics(loadErrs, warnings)
	if res != nil && err == nil {
		diags = append(diags, validate.Validate(res.Snapshot, validate.Options{})...)
	}
	rep := validate.NewReport(files, diags)
	if err := validateFormats().write(streams.Out, g.Output, rep); err != nil {
		return err
	}
	if !rep.Valid {
		return &ExitError{Code: ExitFailure, Quiet: true}
	}
	return nil
}
