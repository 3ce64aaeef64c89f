package autoscale

import (
	"context"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
)

// provReqResult sums up a plan for the ProvisioningRequest tests: nodes
// added and every request's Provisioned condition.
func provReqResult(t *testing.T, snap *snapshot.Snapshot, opts Options) (int, map[string]string) {
	t.Helper()
	out, err := Run(context.Background(), snap, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	conds := map[string]string{}
	for _, pr := range out.Plan.ProvisioningRequests {
		for _, c := range pr.Conditions {
			if c.Type == CondProvisioned || c.Type == CondFailed {
				conds[pr.Name] = c.Type + "=" + c.Status + " " + c.Reason
			}
		}
	}
	return out.Plan.NodesAdded, conds
}

// The classes on their scenarios, in cluster-autoscaler's way (claims of
// claim templates are never made) and in drasim's correct one.
func TestProvisioningRequests(t *testing.T) {
	for _, tc := range []struct {
		scenario, claims string
		nodes            int
		want             string
	}{
		{"provreq-check-fit.yaml", ClaimsUpstream, 0, "Provisioned=True CapacityIsFound"},
		{"provreq-check-nofit.yaml", ClaimsUpstream, 0, "Provisioned=False CapacityIsNotFound"},
		{"provreq-atomic-fit.yaml", ClaimsUpstream, 4, "Provisioned=True CapacityIsProvisioned"},
		{"provreq-atomic-max.yaml", ClaimsUpstream, 0, "Provisioned=False CapacityIsNotFound"},
		{"provreq-atomic-pods.yaml", ClaimsUpstream, 5, "Provisioned=True CapacityIsProvisioned"},
		{"provreq-check-dra.yaml", ClaimsUpstream, 0, "Provisioned=False CapacityIsNotFound"},
		{"provreq-check-dra.yaml", ClaimsCorrect, 0, "Provisioned=True CapacityIsFound"},
		{"provreq-atomic-dra.yaml", ClaimsUpstream, 0, "Provisioned=False CapacityIsNotFound"},
		{"provreq-atomic-dra.yaml", ClaimsCorrect, 2, "Provisioned=True CapacityIsProvisioned"},
	} {
		t.Run(tc.scenario+"/"+tc.claims, func(t *testing.T) {
			snap := loadScenario(t, tc.scenario)
			nodes, conds := provReqResult(t, snap, Options{Expanders: []string{ExpanderLeastWaste}, ProvReqClaims: tc.claims})
			if nodes != tc.nodes || len(conds) != 1 {
				t.Fatalf("added %d nodes with conditions %v, want %d nodes and one request", nodes, conds, tc.nodes)
			}
			for _, got := range conds {
				if got != tc.want {
					t.Errorf("condition %q, want %q", got, tc.want)
				}
			}
		})
	}
}

// check-capacity's noRetry parameter turns CapacityIsNotFound into Failed,
// and a class CA does not serve is an error that names the object.
func TestProvisioningRequestParametersAndErrors(t *testing.T) {
	snap := loadScenario(t, "provreq-check-nofit.yaml")
	pr := *snap.ProvisioningRequests[0]
	pr.Spec.Parameters = map[string]string{"noRetry": "true"}
	snap.ProvisioningRequests = []*snapshot.ProvisioningRequest{&pr}
	_, conds := provReqResult(t, snap, Options{})
	if diff := cmp.Diff(map[string]string{"default/too-big": "Failed=True CapacityIsNotFound"}, conds); diff != "" {
		t.Errorf("noRetry (-want +got):\n%s", diff)
	}
	bad := pr
	bad.Spec.ProvisioningClassName = "queued-provisioning.gke.io"
	snap.ProvisioningRequests = []*snapshot.ProvisioningRequest{&bad}
	_, err := Run(context.Background(), snap, Options{})
	if err == nil || !strings.Contains(err.Error(), `ProvisioningRequest "default/too-big"`) || !strings.Contains(err.Error(), "spec.provisioningClassName") {
		t.Errorf("unknown class: got error %v, want one naming the request and spec.provisioningClassName", err)
	}
}

// Buffers: how many chunks the fleet holds and the nodes added for them.
func TestCapacityBuffers(t *testing.T) {
	for _, tc := range []struct {
		scenario, claims string
		want             map[string][3]int // replicas, held, nodes added
	}{
		{"buffer-cpu.yaml", ClaimsUpstream, map[string][3]int{"default/spare": {3, 3, 3}}},
		{"buffer-limits.yaml", ClaimsUpstream, map[string][3]int{"default/spare": {3, 3, 2}}},
		{"buffer-percentage.yaml", ClaimsUpstream, map[string][3]int{"default/web-headroom": {2, 2, 0}, "default/big": {3, 3, 3}}},
		{"buffer-gpu.yaml", ClaimsUpstream, map[string][3]int{"default/gpu-spare": {3, 3, 2}}},
		{"buffer-dra.yaml", ClaimsUpstream, map[string][3]int{"default/gpu-spare": {3, 0, 0}, "default/cpu-spare": {2, 2, 2}}},
		{"buffer-dra.yaml", ClaimsCorrect, map[string][3]int{"default/gpu-spare": {3, 3, 2}, "default/cpu-spare": {2, 2, 2}}},
	} {
		t.Run(tc.scenario+"/"+tc.claims, func(t *testing.T) {
			out, err := Run(context.Background(), loadScenario(t, tc.scenario), Options{Expanders: []string{ExpanderLeastWaste}, ProvReqClaims: tc.claims})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][3]int{}
			for _, b := range out.Plan.Buffers {
				got[b.Name] = [3]int{b.Replicas, b.Held, b.NodesAdded}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("buffers [replicas held nodes] (-want +got):\n%s", diff)
			}
		})
	}
}

// With GenericWorkload on, a gang of three 2-GPU pods and room for one
// 4-GPU node: cluster-autoscaler adds the node (two pods fit it) that the
// gang never runs on; the gang-aware option adds none.
func TestGangAwareScaleUp(t *testing.T) {
	gates, err := feature.Parse("GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		aware bool
		nodes int
	}{{false, 1}, {true, 0}} {
		out, err := Run(context.Background(), loadScenario(t, "gang-devices-short.yaml"), Options{Sim: sim.Options{Gates: gates}, GangAwareScaleUp: tc.aware})
		if err != nil {
			t.Fatal(err)
		}
		if out.Plan.NodesAdded != tc.nodes {
			t.Errorf("gang-aware %v: added %d nodes, want %d", tc.aware, out.Plan.NodesAdded, tc.nodes)
		}
	}
	// Where the whole gang fits, both add the same two nodes.
	for _, aware := range []bool{false, true} {
		out, err := Run(context.Background(), loadScenario(t, "gang-devices.yaml"), Options{Sim: sim.Options{Gates: gates}, GangAwareScaleUp: aware})
		if err != nil {
			t.Fatal(err)
		}
		if out.Plan.NodesAdded != 2 || out.Plan.Result.Summary.Unschedulable != 0 {
			t.Errorf("gang-devices, gang-aware %v: added %d nodes, %d pods pending; want 2 and 0", aware, out.Plan.NodesAdded, out.Plan.Result.Summary.Unschedulable)
		}
	}
}
