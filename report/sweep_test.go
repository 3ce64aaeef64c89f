package report

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/sweep"
	"github.com/google/go-cmp/cmp"
)

const sweepGoldenDir = "testdata/sweep"

// sweepRenderers are the sweep summary's renderers with golden files, by
// the golden file's extension.
var sweepRenderers = []struct {
	ext   string
	write func(io.Writer, *sweep.Summary) error
}{
	{"txt", WriteSweepTable},
	{"md", WriteSweepMarkdown},
	{"json", WriteSweepJSON},
	{"csv", WriteSweepCSV},
	{"html", WriteSweepHTML},
}

// sweepSummary aggregates a results file of testdata/sweep.
func sweepSummary(t *testing.T, input string) *sweep.Summary {
	t.Helper()
	f, err := os.Open(input)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	streams, err := sweep.ReadStreams(input, f, false)
	if err != nil {
		t.Fatalf("reading %s: want no error, got %v", input, err)
	}
	m, err := sweep.Merge(streams, true)
	if err != nil {
		t.Fatalf("merging %s: want no error, got %v", input, err)
	}
	return sweep.Aggregate(m.Header, m.Rows)
}

func TestSweepRenderersGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join(sweepGoldenDir, "*.input.jsonl"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("want inputs in %s, got %v (%v)", sweepGoldenDir, inputs, err)
	}
	sort.Strings(inputs)
	for _, input := range inputs {
		name := strings.TrimSuffix(filepath.Base(input), ".input.jsonl")
		t.Run(name, func(t *testing.T) {
			s := sweepSummary(t, input)
			for _, r := range sweepRenderers {
				var first, second bytes.Buffer
				if err := r.write(&first, s); err != nil {
					t.Fatalf("%s renderer: want no error, got %v", r.ext, err)
				}
				if err := r.write(&second, s); err != nil {
					t.Fatalf("%s renderer: want no error, got %v", r.ext, err)
				}
				if !bytes.Equal(first.Bytes(), second.Bytes()) {
					t.Fatalf("%s renderer: two renderings differ (map order leaking into output?)", r.ext)
				}
				checkGolden(t, filepath.Join(sweepGoldenDir, name+".golden."+r.ext), first.Bytes())
			}
		})
	}
}

func TestSweepJSONReadsBack(t *testing.T) {
	s := sweepSummary(t, filepath.Join(sweepGoldenDir, "expanders.input.jsonl"))
	var b bytes.Buffer
	if err := WriteSweepJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	var back sweep.Summary
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("reading the JSON back: %v", err)
	}
	if diff := cmp.Diff(*s, back); diff != "" {
		t.Errorf("summary after a JSON round trip (-want +got):\n%s", diff)
	}
}

func TestSweepChartSVG(t *testing.T) {
	s := sweepSummary(t, filepath.Join(sweepGoldenDir, "grid.input.jsonl"))
	var b bytes.Buffer
	drawn, err := WriteSweepChartSVG(&b, s.Charts[0], s.Axes[0].Values)
	if err != nil || !drawn {
		t.Fatalf("want the first chart drawn, got drawn=%v, %v", drawn, err)
	}
	svg := b.String()
	for _, want := range []string{"<svg", "pending by gpus", "lists=true", "lists=false"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart SVG: want %q in it", want)
		}
	}
	if got := SweepChartName(sweep.Chart{Metric: "first choice/share", Axis: "gpus"}); got != "first_choice_share-by-gpus" {
		t.Errorf("chart file name: want first_choice_share-by-gpus, got %s", got)
	}
}
