package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim/result"
)

var sampleEdits = []result.Edit{
	{Index: 1, Source: "upgrade.yaml edits[0]", Type: "drain", Description: "drain nodes with pool=a (2 node(s))", Nodes: []string{"a-1", "a-2"},
		Evicted:  []result.MovedPod{{Pod: "ml/infer-0", From: "a-1", Phase: result.PhaseScheduled, Node: "b-1"}, {Pod: "ml/train-0", From: "a-2", Phase: result.PhaseUnschedulable}},
		Blocked:  []result.BlockedEviction{{Pod: "ml/infer-1", Node: "a-2", Budget: "ml/infer", Reason: "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget infer needs 2 healthy pods and has 2 currently"}},
		Warnings: []string{"1 eviction(s) refused by PodDisruptionBudgets"}},
	{Index: 2, Source: "--add-nodes h100=1", Type: "addNodes", Description: "add 1 node(s) of NodeGroup h100", Nodes: []string{"h100-template-1"}, Devices: 8,
		Added: []result.MovedPod{{Pod: "kube-system/agent-x2k9p", Phase: result.PhaseScheduled, Node: "h100-template-1"}}},
	{Index: 3, Source: "--taint-devices gpu.example.com/b-1:bad:NoSchedule", Type: "taintDevices", Description: "taint 8 device(s) (driver gpu.example.com, pool b-1) with bad:NoSchedule", Devices: 8},
}

func TestEditsTableGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteEditsTable(&b, sampleEdits); err != nil {
		t.Fatalf("WriteEditsTable: %v", err)
	}
	checkGolden(t, filepath.Join("testdata", "edits", "edits.golden.txt"), b.Bytes())
	b.Reset()
	if err := WriteEditsTable(&b, nil); err != nil || b.Len() != 0 {
		t.Errorf("no edits: want no output, got %q (%v)", b.String(), err)
	}
}
