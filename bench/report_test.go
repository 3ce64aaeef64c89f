package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/generate"
)

// BenchmarkReportMIG is drasim report (replay and capacity analysis) on a
// cluster of partitionable A100s (issue 26): the largest request of a
// class with MIG partitions used to be an exhaustive allocator search that
// did not finish on one node. Before the timed loop it checks that every
// largest request is exact and that a claim for MIG partitions gets the
// allocator's limit of 32 devices somewhere; every timed analysis must
// give the same largest requests.
func BenchmarkReportMIG(b *testing.B) {
	for _, nodes := range []int{10, 100} {
		b.Run(fmt.Sprintf("nodes=%d,pods=%d", nodes, nodes), func(b *testing.B) {
			snap := mustGenerate(b, generate.Options{Nodes: nodes, Pods: nodes, Profiles: map[string]int{generate.ProfileA100MIG: 1}})
			// Admitted once, as drasim report admits its input on load.
			if err := sim.Admit(snap); err != nil {
				b.Fatalf("sim.Admit: want the generated snapshot admitted, got %v", err)
			}
			report := func() *analysis.Report {
				run := mustSimulate(b, snap, sim.Options{Admitted: true})
				rep, err := analysis.Analyze(context.Background(), run, analysis.Options{})
				if err != nil {
					b.Fatalf("Analyze: want a report, got error %v", err)
				}
				return rep
			}
			first := report()
			for _, lr := range first.LargestRequests {
				if lr.AtLeast {
					b.Fatalf("class %s: want an exact largest request, got a lower bound %d", lr.Class, lr.Devices)
				}
				if lr.Class == "mig.gpu.example.com" && lr.Devices != 32 {
					b.Fatalf("class %s: want 32 devices (the most one claim holds), got %d", lr.Class, lr.Devices)
				}
			}
			want, _ := json.Marshal(first.LargestRequests)
			b.ResetTimer()
			for b.Loop() {
				got, _ := json.Marshal(report().LargestRequests)
				if string(got) != string(want) {
					b.Fatalf("largest requests changed between runs:\nfirst %s\nnow   %s", want, got)
				}
			}
		})
	}
}
