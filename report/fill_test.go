package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/fill"
)

const fillGoldenDir = "testdata/fill"

// fillResult is a hand-made result of two policies over two seeds.
func fillResult() *fill.Result {
	curve := func(policy string, seed int64, alloc100, alloc130 float64) fill.Curve {
		return fill.Curve{Policy: policy, Seed: seed, Submitted: 100, Requested: 13, Placed: 90, Failed: 10, Allocation: alloc130, Fragmentation: 100 - alloc130 - 2,
			Points: []fill.Point{
				{Arrived: 0, Allocation: 0, Fragmentation: 50, FragmentationRate: 50, Pods: 3},
				{Arrived: 50, Allocation: 50, Fragmentation: 20, FragmentationRate: 40, Pods: 2},
				{Arrived: 80, Allocation: 79.5, Fragmentation: 10, FragmentationRate: 48.78, Pods: 1},
				{Arrived: 100, Allocation: alloc100, Fragmentation: 100 - alloc100 - 1, FragmentationRate: 90, Pods: 0},
				{Arrived: 130, Allocation: alloc130, Fragmentation: 100 - alloc130 - 2, FragmentationRate: 95, Pods: 4},
			}}
	}
	curves := []fill.Curve{curve("kube", 1, 92, 94), curve("fgd", 1, 95, 95.5), curve("kube", 2, 93, 94.5), curve("fgd", 2, 95.2, 95.4)}
	first, err := fill.Merge(&fill.Result{APIVersion: fill.APIVersion, Kind: fill.Kind, Target: 1.3, Seeds: []int64{1}, Order: fill.OrderShuffle, Devices: 10, Nodes: 2, WorkloadPods: 80, Curves: curves[:2]},
		&fill.Result{APIVersion: fill.APIVersion, Kind: fill.Kind, Target: 1.3, Seeds: []int64{2}, Order: fill.OrderShuffle, Devices: 10, Nodes: 2, WorkloadPods: 80, Curves: curves[2:]})
	if err != nil {
		panic(err)
	}
	return first
}

func TestFillGolden(t *testing.T) {
	r := fillResult()
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"fill.table.txt", func(b *bytes.Buffer) error { return WriteFillTable(b, r) }},
		{"fill.csv", func(b *bytes.Buffer) error { return WriteFillCSV(b, r) }},
	} {
		var b bytes.Buffer
		if err := tc.write(&b); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		checkGolden(t, filepath.Join(fillGoldenDir, tc.file), b.Bytes())
	}
}

func TestFillHTML(t *testing.T) {
	var b bytes.Buffer
	if err := WriteFillHTML(&b, fillResult()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{ChartFillAllocation, ChartFillFragmentation, "<svg", "fill-opacity", "Means over the seeds", "95.45 ± "} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(page, "<svg") != 2 {
		t.Errorf("want 2 charts, got %d <svg> elements", strings.Count(page, "<svg"))
	}
}
