package scenarios_test

import (
	"os"
	"testing"

	"github.com/drasim/drasim/internal/golden"
)

// TestMain fails the run when a golden result is read by no test.
func TestMain(m *testing.M) {
	os.Exit(golden.Main(m, "golden/*.json"))
}
