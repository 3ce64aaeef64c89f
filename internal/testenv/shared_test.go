package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLookupRealworld(t *testing.T) {
	empty := t.TempDir()
	t.Setenv(RealworldEnv, empty)
	dir, err := LookupRealworld()
	if err == nil {
		t.Fatalf("%s=%s without %s: want an error, got the corpus %s", RealworldEnv, empty, realworldIndex, dir)
	}
	for _, want := range []string{empty, realworldIndex, RealworldEnv, "../shared"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q: want it to name %q", err, want)
		}
	}

	if err := os.WriteFile(filepath.Join(empty, realworldIndex), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir, err := LookupRealworld(); err != nil || dir != empty {
		t.Errorf("with %s: want (%s, nil), got (%s, %v)", realworldIndex, empty, dir, err)
	}

	// Without the variable, the corpus is looked for beside the repository.
	t.Setenv(RealworldEnv, "")
	dir, _ = LookupRealworld()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(root), "shared", "realworld"); dir != want {
		t.Errorf("without %s: want %s, got %s", RealworldEnv, want, dir)
	}
}
