package inspect_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/testenv"
	"github.com/drasim/drasim/sim/inspect"
	"github.com/drasim/drasim/sim/load"
)

// TestSummarizeRealWorld summarizes every real-world file that loads and
// checks that the counts agree with each other.
func TestSummarizeRealWorld(t *testing.T) {
	// The shared collection of published DRA manifests and real cluster
	// dumps; the test skips without it, or fails in CI.
	dir := testenv.Realworld(t)
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			if d.Name() != "INDEX.yaml" {
				files = append(files, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing %s: want no error, got: %v", dir, err)
	}
	loaded := 0
	for _, f := range files {
		res, err := load.Load([]string{f}, load.Options{})
		if err != nil {
			continue // broken input is the loader's business, tested there
		}
		loaded++
		rel, _ := filepath.Rel(dir, f)
		t.Run(rel, func(t *testing.T) {
			checkInvariants(t, inspect.Summarize(res.Snapshot, inspect.Options{}))
		})
	}
	t.Logf("summarized %d of %d files", loaded, len(files))
}

func checkInvariants(t *testing.T, s *inspect.Summary) {
	t.Helper()
	n := s.Nodes
	if n.Schedulable+n.Unschedulable != n.Total {
		t.Errorf("nodes: want schedulable+unschedulable = total, got %d+%d, total %d", n.Schedulable, n.Unschedulable, n.Total)
	}
	grouped := 0
	for _, g := range n.Groups {
		grouped += g.Nodes
	}
	if grouped != n.Total {
		t.Errorf("nodes: want groups to add up to total %d, got %d", n.Total, grouped)
	}
	byDriver, byPool := 0, 0
	for _, d := range s.Devices.Drivers {
		byDriver += d.Devices
		if d.Allocated > d.Devices {
			t.Errorf("driver %s: want allocated <= devices, got %d > %d", d.Name, d.Allocated, d.Devices)
		}
	}
	for _, p := range s.Pools {
		byPool += p.Devices
	}
	if byDriver != s.Devices.Total || byPool != s.Devices.Total {
		t.Errorf("devices: want drivers and pools to add up to total %d, got %d and %d", s.Devices.Total, byDriver, byPool)
	}
	for _, c := range s.Devices.Classes {
		if c.Allocated > c.Matching || c.AdminAccess > c.Matching {
			t.Errorf("class %s: want allocated and adminAccess <= matching, got %d, %d > %d", c.Name, c.Allocated, c.AdminAccess, c.Matching)
		}
		if c.Matching+c.EvalErrors > s.Devices.Total {
			t.Errorf("class %s: want matching+evalErrors <= %d devices, got %d+%d", c.Name, s.Devices.Total, c.Matching, c.EvalErrors)
		}
	}
	c := s.Claims
	if c.Allocated+c.Pending != c.Total || c.Reserved > c.Total {
		t.Errorf("claims: want allocated+pending = total >= reserved, got %d+%d, total %d, reserved %d", c.Allocated, c.Pending, c.Total, c.Reserved)
	}
	p := s.Pods
	if p.Bound+p.Pending != p.Total || p.FromDump+p.Generated != p.Total {
		t.Errorf("pods: want bound+pending = fromDump+generated = total, got %d+%d, %d+%d, total %d", p.Bound, p.Pending, p.FromDump, p.Generated, p.Total)
	}
	inWorkloads := 0
	for _, w := range s.Workloads {
		inWorkloads += w.Pods
	}
	if inWorkloads != p.Total {
		t.Errorf("workloads: want their pods to add up to %d, got %d", p.Total, inWorkloads)
	}
}
