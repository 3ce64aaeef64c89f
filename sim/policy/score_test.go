package policy

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The hand-worked node of docs/policies.md: 8 CPUs and three GPUs with
// 1000, 300 and 700 milli-GPUs left, and a workload of three shapes.
var (
	worked     = View{MilliCPULeft: 8000, MilliCPUCapacity: 16000, Left: []int64{1000, 300, 700}}
	workedLoad = &Workload{Shapes: []Weighted{
		{Shape: Shape{MilliCPU: 2000, GPUs: 1, MilliGPU: 500}, Freq: 0.6},
		{Shape: Shape{MilliCPU: 4000, GPUs: 1, MilliGPU: 1000}, Freq: 0.3},
		{Shape: Shape{MilliCPU: 1000}, Freq: 0.1},
	}}
)

func workedFrag(cpu int64, left []int64) float64 { return Frag(cpu, left, workedLoad, nil) }

func TestFragWorkedExample(t *testing.T) {
	tests := []struct {
		name string
		cpu  int64
		left []int64
		want float64
	}{
		// 0.6·300 (the 300 GPU cannot take a half) + 0.3·(300+700) + 0.1·2000
		{name: "worked node", cpu: 8000, left: []int64{1000, 300, 700}, want: 680},
		// the half on GPU 0: the whole-GPU shape no longer fits anywhere
		{name: "half on the free GPU", cpu: 6000, left: []int64{500, 300, 700}, want: 0.6*300 + 0.3*1500 + 0.1*1500},
		{name: "half on the 700 GPU", cpu: 6000, left: []int64{1000, 300, 200}, want: 0.6*500 + 0.3*500 + 0.1*1500},
		// no CPU: nothing fits, every GPU left is fragment
		{name: "no CPU", cpu: 0, left: []int64{1000, 300, 700}, want: 2000},
		{name: "no GPU left", cpu: 8000, left: []int64{0, 0, 0}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workedFrag(tc.cpu, tc.left); !near(got, tc.want) {
				t.Errorf("Frag = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFragAccess(t *testing.T) {
	// A shape that may use GPU 1 only: the others count as fragment.
	w := &Workload{Shapes: []Weighted{{Shape: Shape{MilliCPU: 1000, GPUs: 1, MilliGPU: 500}, Freq: 1}}}
	got := Frag(8000, []int64{1000, 1000}, w, [][]bool{{false, true}})
	if !near(got, 1000) {
		t.Errorf("Frag with GPU 0 out of reach = %v, want 1000", got)
	}
	if got := Frag(8000, []int64{1000, 1000}, w, [][]bool{{false, false}}); !near(got, 2000) {
		t.Errorf("Frag with no GPU in reach = %v, want 2000 (the simulator's no access)", got)
	}
}

func TestFGDScoreWorkedExample(t *testing.T) {
	tests := []struct {
		name       string
		pod        Shape
		want       int64
		wantChosen []int
	}{
		// GPU 0: 680 -> 780, sigmoid(-0.1)·100 = 47.5; GPU 2: 680 -> 600,
		// sigmoid(0.08)·100 = 51.99: GPU 2 wins with 51.
		{name: "a half GPU goes where it fragments least", pod: Shape{MilliCPU: 2000, GPUs: 1, MilliGPU: 500}, want: 51, wantChosen: []int{2}},
		// the whole GPU 0: 680 -> 580, sigmoid(0.1)·100 = 52.5
		{name: "a whole GPU takes the free one", pod: Shape{MilliCPU: 4000, GPUs: 1, MilliGPU: 1000}, want: 52, wantChosen: []int{0}},
		// CPU only: 680 -> 0.6·300+0.3·1000+0.1·2000 = 680, unchanged: 50
		{name: "a CPU pod", pod: Shape{MilliCPU: 1000}, want: 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, chosen := FGDScore(worked, tc.pod, nil, workedFrag)
			if got != tc.want || !slices.Equal(chosen, tc.wantChosen) {
				t.Errorf("FGDScore = %d on GPUs %v, want %d on %v", got, chosen, tc.want, tc.wantChosen)
			}
		})
	}
}

func TestScoresOnHandWorkedNodes(t *testing.T) {
	free8 := View{MilliCPULeft: 64000, MilliCPUCapacity: 64000, Left: []int64{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}}
	used := View{MilliCPULeft: 32000, MilliCPUCapacity: 64000, Left: []int64{1000, 1000, 300, 0}}
	half := View{MilliCPULeft: 32000, MilliCPUCapacity: 64000, Left: []int64{1000, 1000, 1000, 1000, 0, 0, 0, 0}}
	four := Shape{MilliCPU: 32000, GPUs: 4, MilliGPU: 1000}
	share := Shape{MilliCPU: 1000, GPUs: 1, MilliGPU: 250}
	one := Shape{MilliCPU: 1000, GPUs: 1, MilliGPU: 1000}
	cpu := Shape{MilliCPU: 1000}
	tests := []struct {
		name string
		got  int64
		want int64
	}{
		// 100·(1 − (0.5·0.25 + 1·0.5)/2) = 68.75
		{"dot-product: four GPUs on an empty node", DotProductScore(free8, four), 68},
		{"dot-product: not enough CPU", DotProductScore(View{MilliCPULeft: 1000, Left: []int64{1000}}, four), 0},
		// 100·(1 − 0.5·32/128 − 0.5·4/8) = 62.5
		{"best-fit: four GPUs on an empty node", BestFitScore(free8, four), 62},
		{"best-fit: exact fit", BestFitScore(View{MilliCPULeft: 32000, Left: []int64{1000, 1000, 1000, 1000}}, four), 100},
		// every GPU free: max(33 − 8, 8)
		{"gpu-packing: empty node", GPUPackingScore(free8, share, nil), 25},
		// the 300 GPU takes it: 100 − 30/10
		{"gpu-packing: a share on a shared GPU", GPUPackingScore(used, share, nil), 97},
		// a fully free GPU of a used node: max(50 − 1, 33)
		{"gpu-packing: a whole GPU on a used node", GPUPackingScore(used, one, nil), 49},
		{"gpu-packing: CPU pod", GPUPackingScore(used, cpu, nil), 0},
		// 25·(8000 − 4000)/8000 = 12, plus 75 / 50 / 25 / 0
		{"gpu-clustering: only shares there", GPUClusteringScore(half, share, map[Tag]int{{GPUs: 1, Share: true}: 2}), 87},
		{"gpu-clustering: shares among others", GPUClusteringScore(half, share, map[Tag]int{{GPUs: 1, Share: true}: 1, {GPUs: 1}: 1}), 62},
		{"gpu-clustering: no GPU pods", GPUClusteringScore(half, share, nil), 37},
		{"gpu-clustering: other kinds only", GPUClusteringScore(half, share, map[Tag]int{{GPUs: 2}: 1}), 12},
		{"gpu-clustering: CPU pod", GPUClusteringScore(half, cpu, nil), 0},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: score %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestNormalizeMinMax(t *testing.T) {
	s := []int64{62, 80, 71}
	NormalizeMinMax(s)
	if diff := cmp.Diff([]int64{0, 100, 50}, s); diff != "" {
		t.Errorf("NormalizeMinMax (-want +got):\n%s", diff)
	}
	s = []int64{40, 40}
	NormalizeMinMax(s)
	if diff := cmp.Diff([]int64{0, 0}, s); diff != "" {
		t.Errorf("NormalizeMinMax of equal scores (-want +got):\n%s", diff)
	}
}

func TestGPUChoices(t *testing.T) {
	v := View{Left: []int64{500, 400, 1000, 1000}}
	tests := []struct {
		name string
		got  []int
		want []int
	}{
		{"best fit: the least free GPU that holds the share", BestFitGPUs(v, Shape{GPUs: 1, MilliGPU: 400}, nil), []int{1}},
		{"best fit: a GPU the request may not use is skipped", BestFitGPUs(v, Shape{GPUs: 1, MilliGPU: 400}, []bool{true, false, true, true}), []int{0}},
		{"whole GPUs: the first free ones", BestFitGPUs(v, Shape{GPUs: 2, MilliGPU: 1000}, nil), []int{2, 3}},
		{"nothing fits", BestFitGPUs(v, Shape{GPUs: 3, MilliGPU: 1000}, nil), nil},
	}
	for _, tc := range tests {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s: GPUs %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestRandomGPUsDeterministicPerSeed(t *testing.T) {
	v := View{Left: []int64{500, 400, 1000, 1000, 700, 600}}
	s := Shape{GPUs: 1, MilliGPU: 300}
	draw := func(seed uint64) []int {
		r := rand.New(rand.NewPCG(seed, 1))
		var out []int
		for range 50 {
			out = append(out, RandomGPUs(v, s, nil, r.IntN)...)
		}
		return out
	}
	a, b := draw(7), draw(7)
	if !slices.Equal(a, b) {
		t.Fatalf("seed 7 drew %v, then %v", a, b)
	}
	if slices.Equal(a, draw(8)) {
		t.Errorf("seeds 7 and 8 drew the same 50 GPUs %v", a)
	}
	seen := map[int]bool{}
	for _, g := range a {
		seen[g] = true
	}
	if len(seen) < 4 {
		t.Errorf("50 draws over 6 GPUs met only %v", seen)
	}
}

func TestNewWorkload(t *testing.T) {
	a := Shape{MilliCPU: 1000, GPUs: 1, MilliGPU: 500}
	b := Shape{MilliCPU: 2000, GPUs: 1, MilliGPU: 1000}
	c := Shape{MilliCPU: 500}
	d := Shape{MilliCPU: 4000, GPUs: 8, MilliGPU: 1000}
	var pods []Shape
	for range 6 {
		pods = append(pods, a)
	}
	for range 2 {
		pods = append(pods, b, c)
	}
	pods = append(pods, d)
	// 11 pods: a 6, b 2, c 2, d 1. At 80% (8.8 pods) a, then b and c (the
	// larger shape first among equals: b) reach 10.
	w, err := NewWorkload(pods, 80)
	if err != nil {
		t.Fatal(err)
	}
	want := []Weighted{{Shape: a, Freq: 0.6}, {Shape: b, Freq: 0.2}, {Shape: c, Freq: 0.2}}
	if diff := cmp.Diff(want, w.Shapes, cmp.Comparer(func(x, y float64) bool { return near(x, y) })); diff != "" {
		t.Errorf("NewWorkload (-want +got):\n%s", diff)
	}
	if _, err := NewWorkload(pods, 101); err == nil {
		t.Error("NewWorkload with threshold 101: no error")
	}
}

func TestArgsValidate(t *testing.T) {
	tests := []struct {
		name string
		args Args
		ok   bool
	}{
		{"fgd", Args{Policy: FGD}, true},
		{"no policy", Args{}, false},
		{"unknown policy", Args{Policy: "tetris"}, false},
		{"kube is not a DrasimPolicy policy", Args{Policy: Kube}, false},
		{"threshold above 100", Args{Policy: FGD, PopularityThreshold: 120}, false},
		{"negative threshold", Args{Policy: FGD, PopularityThreshold: -1}, false},
	}
	for _, tc := range tests {
		if err := tc.args.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
