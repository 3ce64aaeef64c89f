package report

import (
	"fmt"
	"io"

	"github.com/drasim/drasim/sim/snapshot"
	"github.com/drasim/drasim/sim/validate"
)

// WriteValidationTable writes drasim validate's table: one line per
// diagnostic, "SEVERITY: where: message", then the verdict and the counts.
func WriteValidationTable(w io.Writer, rep *validate.Report) error {
	for _, d := range rep.Diagnostics {
		if _, err := fmt.Fprintf(w, "%s: %s\n", d.Severity, DescribeDiagnostic(d)); err != nil {
			return err
		}
	}
	verdict := "valid"
	if !rep.Valid {
		verdict = "invalid"
	}
	_, err := fmt.Fprintf(w, "%s: %d file(s), %d error(s), %d warning(s)\n", verdict, len(rep.Files), rep.Errors, rep.Warnings)
	return err
}

// DescribeDiagnostic is where a diagnostic points, then its message, as
// drasim validate lists it and every command quotes the input it refuses; a
// diagnostic about the snapshot as a whole says "(snapshot)".
func DescribeDiagnostic(d validate.Diagnostic) string {
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
