package load

import (
	"os"
	"testing"

	"github.com/drasim/drasim/sim/snapshot"
)

func refOf(kind, ns, name string) snapshot.Ref {
	return snapshot.Ref{Kind: kind, Namespace: ns, Name: name}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
