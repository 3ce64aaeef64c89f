package sim_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/invariants"
	"github.com/drasim/drasim/internal/testenv"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
)

// TestRealWorld replays every real-world manifest and dump that loads:
// no error, no violated invariant, an output snapshot that loads again, and
// an explanation for every pod that stays pending. Files the API server
// would reject (documentation snippets) are replayed too (Admitted), for
// the engine's robustness; drasim's commands refuse them.
func TestRealWorld(t *testing.T) {
	dir := testenv.Realworld(t)
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".json")) && filepath.Base(path) != "INDEX.yaml" {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	replayed := 0
	for _, f := range files {
		res, err := load.Load([]string{f}, load.Options{})
		if err != nil {
			continue // the loader's own test says which files must fail and why
		}
		name, _ := filepath.Rel(dir, f)
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			opts := sim.Options{Admitted: true}
			run, err := sim.Simulate(ctx, res.Snapshot, opts)
			if err != nil {
				t.Fatalf("simulate: %v", err)
			}
			replayed++
			if problems := invariants.Check(run); len(problems) > 0 {
				t.Errorf("invariants violated:\n  %s", strings.Join(problems, "\n  "))
			}
			var buf bytes.Buffer
			if err := run.Cluster.WriteSnapshot(&buf); err != nil {
				t.Fatalf("output snapshot: %v", err)
			}
			if _, err := load.LoadBytes("after.yaml", buf.Bytes(), load.Options{}); err != nil {
				t.Errorf("the output snapshot does not load: %v", err)
			}
			for _, p := range run.Result.Pods {
				if p.Phase != "Unschedulable" {
					continue
				}
				if p.Message == "" {
					t.Errorf("pending pod %s has no message", p.Key())
				}
				if _, err := sim.Explain(ctx, res.Snapshot, opts, p.Namespace, p.Name); err != nil {
					t.Errorf("explain %s: %v", p.Key(), err)
				}
			}
		})
	}
	t.Logf("replayed %d real-world files", replayed)
}
