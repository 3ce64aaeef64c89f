package validate

import "github.com/drasim/drasim/sim/load"

// ReportAPIVersion and ReportKind identify a Report.
const (
	ReportAPIVersion = "drasim.io/v1alpha1"
	ReportKind       = "ValidationReport"
)

// The codes of what the loader found, as a Report lists it. They are not
// Validate's codes (Codes): a snapshot that does not load is not validated.
const (
	// CodeLoad is an error that stopped the loading (a document that is
	// no object, an unknown API version, a malformed field).
	CodeLoad Code = "Load"
	// CodeLoadWarning is something suspicious but legal the loader found.
	CodeLoadWarning Code = "LoadWarning"
)

// Report is drasim validate's verdict on a snapshot, as -o json and -o yaml
// write it: the files read, every diagnostic, and their counts.
type Report struct {
	APIVersion  string       `json:"apiVersion"`
	Kind        string       `json:"kind"`
	Valid       bool         `json:"valid"`
	Errors      int          `json:"errors"`
	Warnings    int          `json:"warnings"`
	Files       []string     `json:"files"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// NewReport counts the diagnostics found in the files; the report is valid
// when none is an error.
func NewReport(files []string, diags []Diagnostic) *Report {
	rep := &Report{APIVersion: ReportAPIVersion, Kind: ReportKind, Files: files, Diagnostics: diags}
	if rep.Diagnostics == nil {
		rep.Diagnostics = []Diagnostic{}
	}
	for _, d := range diags {
		if d.Severity == SeverityError {
			rep.Errors++
		} else {
			rep.Warnings++
		}
	}
	rep.Valid = rep.Errors == 0
	return rep
}

// LoadDiagnostics turns what the loader found into diagnostics: its errors
// (CodeLoad) and then its warnings (CodeLoadWarning), in the loader's order.
func LoadDiagnostics(errs load.Errors, warnings []load.Warning) []Diagnostic {
	var diags []Diagnostic
	for _, e := range errs {
		diags = append(diags, Diagnostic{Severity: SeverityError, Source: e.Source, Object: e.Object, Field: e.Field, Message: e.Msg, Code: CodeLoad})
	}
	for _, w := range warnings {
		diags = append(diags, Diagnostic{Severity: SeverityWarning, Source: w.Source, Message: w.Message, Code: CodeLoadWarning})
	}
	return diags
}
