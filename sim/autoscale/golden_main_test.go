package autoscale

import (
	"os"
	"testing"

	"github.com/drasim/drasim/internal/golden"
)

// TestMain fails the run when a golden plan is read by no test.
func TestMain(m *testing.M) {
	os.Exit(golden.Main(m, "testdata/*.json", "testdata/ca/own-expanders.md"))
}
