package report

import (
	"os"
	"testing"

	"github.com/drasim/drasim/internal/golden"
)

// TestMain fails the run when a golden file is read by no test.
func TestMain(m *testing.M) {
	os.Exit(golden.Main(m,
		"testdata/*/*.golden.*",
		"testdata/page.golden.css",
		"testdata/fill/fill.csv",
		"testdata/fill/fill.table.txt",
	))
}
