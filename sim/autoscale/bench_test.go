package autoscale

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkRun sweeps the number of pending pods: GPU pods that fit two
// groups and CPU pods that fit all three. It checks first that the plan
// places every pod.
func BenchmarkRun(b *testing.B) {
	for _, pods := range []int{50, 200, 800} {
		b.Run(fmt.Sprintf("pods=%d", pods), func(b *testing.B) {
			objs := func() []any {
				return []any{
					gpuClass(), gpuTemplate("two", 2, false),
					makeGroup("gpu8").GPUs(8, 0).Max(1000).Price(8).Obj(),
					makeGroup("gpu4").GPUs(4, 0).Max(1000).Price(3).Obj(),
					makeGroup("cpu").CPU("16").Max(1000).Price(0.5).Obj(),
					replicas(pods/2, "train", func(p *podBuilder) *podBuilder { return p.Claim("two").CPU("4") }),
					replicas(pods/2, "web", func(p *podBuilder) *podBuilder { return p.CPU("3") }),
				}
			}
			opts := Options{Expanders: []string{ExpanderLeastWasteDRA, ExpanderPrice}}
			out, err := Run(context.Background(), snapshotOf(objs()...), opts)
			if err != nil {
				b.Fatalf("Run: %v", err)
			}
			if got := out.Plan.Result.Summary.Scheduled; got != pods/2*2 {
				b.Fatalf("want all %d pods scheduled, got %d (stop: %s)", pods/2*2, got, out.Plan.Stop.Message)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), snapshotOf(objs()...), opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
