package autoscale

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/load"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestAssess holds the states of ProvisioningRequests and the chunks of
// CapacityBuffers to what the scenarios' comments work out.
func TestAssess(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		// A node with room for the request's pods: fits.
		{"provreq-check-fit.yaml", []string{"default/fits fits 4/4"}},
		// Group cpu (4 CPU) up to 10 nodes: 4 pods of 3 CPU need 4 nodes.
		{"provreq-atomic-fit.yaml", []string{"default/train needs-scale-up 0/4 [cpu+4]"}},
		// Its group's maxSize is too small for all pods at once.
		{"provreq-atomic-max.yaml", []string{"default/train cannot 0/4 []"}},
		// Two pods of two GPUs on a node with four free GPUs: CA's answer
		// is no (issue 10065), the correct one is yes.
		{"provreq-check-dra.yaml", []string{"default/infer does-not-fit 0/2 [] correct fits 2/2"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res, err := load.Load([]string{"../../scenarios/autoscale/" + tc.file}, load.Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			a, err := Assess(context.Background(), res.Snapshot, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range a.ProvisioningRequests {
				line := r.Name + " " + r.State + " " + itoa(r.FitNow) + "/" + itoa(r.Pods)
				if r.State != RequestFits {
					line += " " + optionsText(r.Options)
				}
				if r.CorrectState != "" {
					line += " correct " + r.CorrectState + " " + itoa(r.CorrectFitNow) + "/" + itoa(r.Pods)
				}
				got = append(got, line)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func itoa(n int) string { return fmt.Sprint(n) }

func optionsText(opts []RequestOption) string {
	var parts []string
	for _, o := range opts {
		parts = append(parts, fmt.Sprintf("%s+%d", o.Group, o.Nodes))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// TestAssessBuffers: the chunks a buffer's fleet holds now, the nodes
// they take and each group's estimate for the rest.
func TestAssessBuffers(t *testing.T) {
	line := func(b BufferAssessment) string {
		var opts []string
		for _, o := range b.Options {
			opts = append(opts, fmt.Sprintf("%s+%d:%d", o.Group, o.Nodes, o.Chunks))
		}
		s := fmt.Sprintf("%s %d/%d on %v options %v", b.Name, b.Held, b.Replicas, b.Nodes, opts)
		if b.CorrectHeld != nil {
			var copts []string
			for _, o := range b.CorrectOptions {
				copts = append(copts, fmt.Sprintf("%s+%d:%d", o.Group, o.Nodes, o.Chunks))
			}
			s += fmt.Sprintf(" correct %d options %v", *b.CorrectHeld, copts)
		}
		return s
	}
	for _, tc := range []struct {
		name, file string
		// cpu, when set, adds node n1 of group cpu with that many CPUs.
		cpu  string
		want []string
	}{
		// 3 chunks of 3 CPU, empty group of 4-CPU nodes: one per node.
		{"empty", "buffer-cpu.yaml", "", []string{"default/spare 0/3 on [] options [cpu+3:3]"}},
		// n1 has 7 CPU: it holds 2 chunks, the third needs a node.
		{"held", "buffer-cpu.yaml", "7", []string{"default/spare 2/3 on [n1] options [cpu+1:1]"}},
		// DRA chunks never fit upstream; with claims, 2 per 4-GPU node.
		{"dra", "buffer-dra.yaml", "", []string{
			"default/gpu-spare 0/3 on [] options [] correct 0 options [gpu+2:3]",
			"default/cpu-spare 0/2 on [] options [cpu+2:2 gpu+1:2]",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := load.Load([]string{"../../scenarios/autoscale/" + tc.file}, load.Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if tc.cpu != "" {
				n := res.Snapshot.NodeGroups[0].Spec.Template.Node.DeepCopy()
				n.Name = "n1"
				n.Labels["kubernetes.io/hostname"] = "n1"
				q := resource.MustParse(tc.cpu)
				n.Status.Allocatable[v1.ResourceCPU], n.Status.Capacity[v1.ResourceCPU] = q, q
				res.Snapshot.Nodes = append(res.Snapshot.Nodes, n)
			}
			a, err := Assess(context.Background(), res.Snapshot, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range a.CapacityBuffers {
				got = append(got, line(b))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("buffers (-want +got):\n%s", diff)
			}
		})
	}
}
