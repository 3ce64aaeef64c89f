package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/inspect"
)

func usage(name string, cpuReq, cpuAlloc, memReq, memAlloc int64) analysis.Usage {
	return analysis.Usage{Name: name, Nodes: 1,
		CPU:    analysis.Quantity{RequestedValue: cpuReq, AllocatableValue: cpuAlloc},
		Memory: analysis.Quantity{RequestedValue: memReq, AllocatableValue: memAlloc}}
}

// One unit per column: CPU in cores, memory in the binary unit of the
// column's largest value (an EKS dump showed 144/382900m).
func TestCapacityTablesUseOneUnitPerColumn(t *testing.T) {
	const gi, mi = 1 << 30, 1 << 20
	r := &analysis.Report{
		Utilization: analysis.Utilization{
			Total:  usage("", 144000, 382900, 512*mi, 16*gi),
			Groups: []analysis.Usage{usage("small", 500, 1900, 100*mi, 3584*mi)},
		},
		Mix: []analysis.Shape{{Name: "web", CPU: "250m", Memory: "512Mi"}, {Name: "big", CPU: "2", Memory: "4Gi"}},
		Stranded: analysis.Stranded{HostNodes: []analysis.StrandedHost{
			{Node: "a", FreeCPU: "1500m", FreeMemory: "768Mi"}, {Node: "b", FreeCPU: "12", FreeMemory: "56Gi"}}},
	}
	var b bytes.Buffer
	if err := WriteCapacityTable(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"144/382.9 (0.0%)", "0.5Gi/16Gi (0.0%)", // total
		"0.5/1.9 (0.0%)", "0.1Gi/3.5Gi (0.0%)", // a group of the same column
		"0.0%     0.25   0.5Gi", "0.0%     2      4Gi", // mix
		"0         1.5        0.8Gi", "0         12         56Gi", // stranded CPU and memory
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want %q in the table:\n%s", want, b.String())
		}
	}
}

func TestInspectTableUsesOneUnitPerColumn(t *testing.T) {
	s := &inspect.Summary{Nodes: inspect.NodeSummary{Groups: []inspect.NodeGroup{
		{Name: "big", Nodes: 2, CPU: "192", Memory: "1536Gi"}, {Name: "tiny", Nodes: 1, CPU: "1500m", Memory: "512Mi"}}}}
	var b bytes.Buffer
	if err := WriteInspectTable(&b, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"big     2       192   1536Gi", "tiny    1       1.5   0.5Gi"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want %q in the table:\n%s", want, b.String())
		}
	}
}
