package report

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/golden"
	"github.com/drasim/drasim/sim/inspect"
	"github.com/drasim/drasim/sim/load"
	"github.com/google/go-cmp/cmp"
)

const inspectGoldenDir = "testdata/inspect"

// inspectInputs maps a golden name to its snapshot: every scenario (globbed at
// test time, so a new one needs only its golden file) and the fixtures in
// testdata/inspect/*.input.yaml, which cover what no scenario shows.
func inspectInputs(t *testing.T) map[string]string {
	t.Helper()
	inputs := map[string]string{}
	for _, pattern := range []string{filepath.Join("..", "scenarios", "*.yaml"), filepath.Join(inspectGoldenDir, "*.input.yaml")} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatalf("glob %s: want no error, got: %v", pattern, err)
		}
		for _, m := range matches {
			name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(m), ".yaml"), ".input")
			if prev, dup := inputs[name]; dup {
				t.Fatalf("golden name %q: want one input, got %s and %s", name, prev, m)
			}
			inputs[name] = m
		}
	}
	if len(inputs) == 0 {
		t.Fatalf("want at least one input in ../scenarios or %s, got none", inspectGoldenDir)
	}
	return inputs
}

func renderInspect(t *testing.T, path string) []byte {
	t.Helper()
	res, err := load.Load([]string{path}, load.Options{})
	if err != nil {
		t.Fatalf("loading %s: want no error, got:\n%v", path, err)
	}
	var buf bytes.Buffer
	if err := WriteInspectTable(&buf, inspect.Summarize(res.Snapshot, inspect.Options{})); err != nil {
		t.Fatalf("WriteInspectTable: want no error, got: %v", err)
	}
	return buf.Bytes()
}

func TestWriteInspectTableGolden(t *testing.T) {
	inputs := inspectInputs(t)
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			got := renderInspect(t, inputs[name])
			if again := renderInspect(t, inputs[name]); !bytes.Equal(got, again) {
				t.Fatalf("two renderings of %s differ (map order leaking into output?) (-first +second):\n%s", inputs[name], cmp.Diff(string(got), string(again)))
			}
			// A golden file whose input is gone is an orphan (TestMain).
			golden.Check(t, filepath.Join(inspectGoldenDir, name+".golden.txt"), got)
		})
	}
}

// TestWriteInspectTablePools checks the POOLS limit on a summary too large
// for any fixture to be worth reading.
func TestWriteInspectTablePools(t *testing.T) {
	s := &inspect.Summary{}
	for i := range 25 {
		s.Pools = append(s.Pools, inspect.Pool{
			Driver: "gpu.example.com", Name: "node-" + string(rune('a'+i)), Node: "node-" + string(rune('a'+i)),
			Generation: 1, Slices: 1, ResourceSliceCount: 1, Complete: i != 22, Devices: 8,
		})
	}
	var buf bytes.Buffer
	if err := WriteInspectTable(&buf, s); err != nil {
		t.Fatalf("WriteInspectTable: want no error, got: %v", err)
	}
	out := buf.String()
	rows := map[string]string{} // pool -> its row, spaces collapsed
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "node-") {
			rows[f[0]] = strings.Join(f, " ")
		}
	}
	if got, want := rows["node-w"], "node-w node-w 1 1/1 8 no"; got != want {
		t.Errorf("row of the incomplete pool: want %q, got %q in:\n%s", want, got, out)
	}
	// 20 rows: the incomplete pool and the first 19 complete ones.
	if _, ok := rows["node-s"]; !ok || len(rows) != 20 {
		t.Errorf("pool rows: want 20 ending with node-s and node-w, got %d in:\n%s", len(rows), out)
	}
	if _, ok := rows["node-t"]; ok {
		t.Errorf("pool rows: want no node-t (past the limit), got:\n%s", out)
	}
	if !strings.Contains(out, "POOLS: 25 total, 1 incomplete\n") || !strings.Contains(out, "\n... and 5 more\n") {
		t.Errorf("pools section: want the totals line and %q, got:\n%s", "... and 5 more", out)
	}
}
