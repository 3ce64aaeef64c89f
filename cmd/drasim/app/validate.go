package app

import (
	"errors"
	"fmt"

	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/drasim/drasim/sim/validate"
	"github.com/spf13/cobra"
)

type validateFlags struct {
	input inputFlags
}

// validationReport is validate's JSON/YAML output.
type validationReport struct {
	APIVersion  string                `json:"apiVersion"`
	Kind        string                `json:"kind"`
	Valid       bool                  `json:"valid"`
	Errors      int                   `json:"errors"`
	Warnings    int                   `json:"warnings"`
	Files       []string              `json:"files"`
	Diagnostics []validate.Diagnostic `json:"diagnostics"`
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
	return setFormats(cmd, "table", "json", "yaml")
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
	var diags []validate.Diagnostic
	var loadErrs load.Errors
	switch {
	case errors.As(err, &loadErrs):
		for _, e := range loadErrs {
			diags = append(diags, validate.Diagnostic{Severity: validate.SeverityError, Source: e.Source, Object: e.Object, Field: e.Field, Message: e.Msg, Code: "Load"})
		}
	case err != nil:
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if res != nil {
		for _, w := range res.Warnings {
			diags = append(diags, validate.Diagnostic{Severity: validate.SeverityWarning, Source: w.Source, Message: w.Message, Code: "LoadWarning"})
		}
		if err == nil {
			diags = append(diags, validate.Validate(res.Snapshot, validate.Options{})...)
		}
	}
	rep := validationReport{APIVersion: "drasim.io/v1alpha1", Kind: "ValidationReport", Diagnostics: diags}
	if res != nil {
		rep.Files = res.Files
	}
	if rep.Diagnostics == nil {
		rep.Diagnostics = []validate.Diagnostic{}
	}
	for _, d := range diags {
		if d.Severity == validate.SeverityError {
			rep.Errors++
		} else {
			rep.Warnings++
		}
	}
	rep.Valid = rep.Errors == 0
	if g.Output == "table" {
		for _, d := range diags {
			fmt.Fprintf(streams.Out, "%s: %s\n", d.Severity, describeDiagnostic(d))
		}
		verdict := "valid"
		if !rep.Valid {
			verdict = "invalid"
		}
		fmt.Fprintf(streams.Out, "%s: %d file(s), %d error(s), %d warning(s)\n", verdict, len(rep.Files), rep.Errors, rep.Warnings)
	} else if err := writeStructured(streams.Out, g.Output, rep); err != nil {
		return err
	}
	if !rep.Valid {
		return &ExitError{Code: ExitFailure, Quiet: true}
	}
	return nil
}

func describeDiagnostic(d validate.Diagnostic) string {
	s := d.Source.String()
	if d.Source == (snapshot.Source{}) {
		s = "(snapshot)"
	}
	if d.Object != "" {
		s += ": " + d.Object
	}
	if d.Field != "" {
		s += ": " + d.Field
	}
	return s + ": " + d.Message
}
