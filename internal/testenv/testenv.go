// Package testenv decides what a test does when a tool it needs (a real
// kube-apiserver, etcd, a browser) is not installed: skip with a message
// that says how to get it, or, in CI, fail, so that CI never passes by
// skipping.
package testenv

import (
	"os"
	"testing"
)

// RequireEnv is the environment variable that turns "skip" into "fail".
// .ci/run sets it after installing every tool the tests use.
const RequireEnv = "DRASIM_REQUIRE_INTEGRATION"

// Required reports whether missing tools fail the test instead of skipping it.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Missing skips the test (or fails it when Required) with a message that
// names what is missing and how to get it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if Required() {
		t.Fatalf("%s=1 but "+format, append([]any{RequireEnv}, args...)...)
	}
	t.Skipf(format, args...)
}
