package app

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFormatsWrite: a registry writes with the format named and refuses
// another with a usage error that lists its own formats.
func TestFormatsWrite(t *testing.T) {
	fs := registry(
		one("table", func(w io.Writer, v int) error { _, err := io.WriteString(w, "table"); return err }),
		structured(itself[int]),
	)
	if diff := cmp.Diff([]string{"table", "json", "yaml"}, fs.names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ format, want string }{{"table", "table"}, {"json", "7\n"}, {"yaml", "7\n"}} {
		var b bytes.Buffer
		if err := fs.write(&b, tc.format, 7); err != nil {
			t.Fatalf("write %s: %v", tc.format, err)
		}
		if b.String() != tc.want {
			t.Errorf("write %s: got %q, want %q", tc.format, b.String(), tc.want)
		}
	}
	err := fs.write(io.Discard, "csv", 7)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage {
		t.Fatalf("write csv: got %v, want a usage error", err)
	}
	if want := `invalid output format "csv" for this command: use one of [table json yaml]`; err.Error() != want {
		t.Errorf("write csv: got %q, want %q", err.Error(), want)
	}
}

// TestCommandsWriteWhatTheyOffer: where a command writes more than one
// result type, each registry writes every format the command offers
// (the -o check lets them all through), except the refusals named here.
func TestCommandsWriteWhatTheyOffer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		offered []string
		written []string
		refused []string // offered, refused with a message of their own
	}{
		{"simulate --autoscale", simulateFormats().names(), simulateScaleUpFormats().names(), nil},
		{"autoscale --compare-expanders", scaleUpFormats().names(), scaleUpComparisonFormats().names(), nil},
		{"timeline --compare", timelineFormats().names(), timelineComparisonFormats().names(), []string{"csv"}},
		{"check --timeline", checkFormats().names(), timelineCheckFormats().names(), nil},
	} {
		for _, f := range tc.offered {
			if !slices.Contains(tc.written, f) && !slices.Contains(tc.refused, f) {
				t.Errorf("%s: -o %s is offered, but its registry cannot write it (it has %v)", tc.name, f, tc.written)
			}
		}
	}
}
