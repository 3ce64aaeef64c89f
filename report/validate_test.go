package report

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/validate"
)

const validateGoldenDir = "testdata/validate"

// validateRenderers are drasim validate's outputs, by golden extension.
var validateRenderers = []struct {
	ext   string
	write func(io.Writer, *validate.Report) error
}{
	{"txt", WriteValidationTable},
	{"json", func(w io.Writer, r *validate.Report) error { return WriteJSON(w, r) }},
	{"yaml", func(w io.Writer, r *validate.Report) error { return WriteYAML(w, r) }},
}

// validationReport builds the report drasim validate builds for one file:
// the loader's errors and warnings, then Validate's diagnostics.
func validationReport(t *testing.T, path string) *validate.Report {
	t.Helper()
	res, err := load.Load([]string{path}, load.Options{})
	var loadErrs load.Errors
	if err != nil && !errors.As(err, &loadErrs) {
		t.Fatalf("loading %s: want no error or load.Errors, got: %v", path, err)
	}
	var files []string
	var warnings []load.Warning
	if res != nil {
		files, warnings = res.Files, res.Warnings
	}
	diags := validate.LoadDiagnostics(loadErrs, warnings)
	if err == nil {
		diags = append(diags, validate.Validate(res.Snapshot, validate.Options{})...)
	}
	return validate.NewReport(files, diags)
}

// TestValidationGolden renders a valid snapshot, one with warnings and an
// error (one of them about the snapshot as a whole) and one that does not
// load. The goldens were written by drasim validate before its renderer
// moved here.
func TestValidationGolden(t *testing.T) {
	inputs := map[string]string{
		"demo":                 filepath.Join("..", "scenarios", "00-demo.yaml"),
		"misindented-selector": filepath.Join(validateGoldenDir, "misindented-selector.input.yaml"),
		"load-error":           filepath.Join(validateGoldenDir, "load-error.input.yaml"),
	}
	for _, name := range []string{"demo", "load-error", "misindented-selector"} {
		rep := validationReport(t, inputs[name])
		for _, r := range validateRenderers {
			t.Run(name+"."+r.ext, func(t *testing.T) {
				var b bytes.Buffer
				if err := r.write(&b, rep); err != nil {
					t.Fatalf("write: want no error, got: %v", err)
				}
				checkGolden(t, filepath.Join(validateGoldenDir, name+".golden."+r.ext), b.Bytes())
			})
		}
	}
}
