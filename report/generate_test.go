package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim/generate"
)

// TestWriteGenerateSummaryGolden renders the summary line of a few
// generated snapshots; the golden was written by drasim generate (-v 1, and
// --output-snapshot for the last) before the renderer moved here.
func TestWriteGenerateSummaryGolden(t *testing.T) {
	cases := []struct {
		nodes, pods int
		seed        int64
		profiles    string
		wrote       string
	}{
		{nodes: 10, pods: 20, seed: 3},
		{nodes: 7, pods: 5, seed: 7, profiles: "dgx-h100=1,l4=3"},
		{nodes: 12, pods: 0, profiles: "cpu=1"},
		{nodes: 3, pods: 2, wrote: "/tmp/g.yaml"},
	}
	var b bytes.Buffer
	for _, c := range cases {
		opts := generate.Options{Seed: c.seed, Nodes: c.nodes, Pods: c.pods}
		var err error
		if opts.Profiles, err = generate.ParseWeights(c.profiles); err != nil {
			t.Fatalf("profiles %q: %v", c.profiles, err)
		}
		if opts.Workloads, err = generate.ParseWeights(""); err != nil {
			t.Fatal(err)
		}
		s, err := generate.Generate(opts)
		if err != nil {
			t.Fatalf("Generate(%+v): want no error, got: %v", opts, err)
		}
		if err := WriteGenerateSummary(&b, s, c.seed, c.wrote); err != nil {
			t.Fatalf("WriteGenerateSummary: want no error, got: %v", err)
		}
	}
	checkGolden(t, filepath.Join("testdata", "generate", "summary.golden.txt"), b.Bytes())
}
