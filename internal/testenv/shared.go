package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// RealworldEnv names a directory of real-world manifests to use instead of
// ../shared/realworld.
const RealworldEnv = "DRASIM_REALWORLD"

// realworldIndex is the file every copy of the real-world corpus has.
const realworldIndex = "INDEX.yaml"

// LookupRealworld returns the directory of the real-world corpus (published
// DRA manifests and real cluster dumps, listed in its INDEX.yaml):
// $DRASIM_REALWORLD, or else realworld/ in the shared kit beside the
// repository (../shared/realworld, as CI and the team's worktrees have it).
// The error says where it looked and what is missing.
func LookupRealworld() (string, error) {
	dir := os.Getenv(RealworldEnv)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(filepath.Dir(root), "shared", "realworld")
	}
	if _, err := os.Stat(filepath.Join(dir, realworldIndex)); err != nil {
		return dir, fmt.Errorf("the real-world corpus (published DRA manifests and cluster dumps, listed in %s) is not at %s (%v): put the shared kit beside the repository as ../shared, or set %s to the corpus", realworldIndex, dir, err, RealworldEnv)
	}
	return dir, nil
}

// Realworld returns the real-world corpus (LookupRealworld). When it is
// missing, the test is skipped with a message that names the path it looked
// at and what it needs, or fails when Required: CI has the corpus, and a
// test that silently skipped there would prove nothing.
func Realworld(tb testing.TB) string {
	tb.Helper()
	dir, err := LookupRealworld()
	if err != nil {
		Missing(tb, "%v", err)
	}
	return dir
}

// repoRoot is the directory of the repository's go.mod, found from the
// test's working directory (its package directory) upwards.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory: cannot find the repository, so not ../shared either")
		}
		dir = parent
	}
}
