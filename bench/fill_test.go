package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim/fill"
)

// openbEnv names the directory of the Alibaba openb CSVs
// (cluster-trace-gpu-v2023/csv of github.com/alibaba/clusterdata).
const openbEnv = "DRASIM_OPENB"

// openbFiles returns the node list and the default pod list, or skips.
func openbFiles(b *testing.B) (nodes, pods string) {
	b.Helper()
	dir := os.Getenv(openbEnv)
	if dir == "" {
		b.Skipf("needs the openb trace (github.com/alibaba/clusterdata, cluster-trace-gpu-v2023/csv): set %s to the folder with openb_node_list_gpu_node.csv and openb_pod_list_default.csv", openbEnv)
	}
	nodes, pods = filepath.Join(dir, "openb_node_list_gpu_node.csv"), filepath.Join(dir, "openb_pod_list_default.csv")
	for _, p := range []string{nodes, pods} {
		if _, err := os.Stat(p); err != nil {
			b.Skipf("%s=%s: %v", openbEnv, dir, err)
		}
	}
	return nodes, pods
}

// BenchmarkFillOpenb is issue 27's speed target: one inflation run on the
// full openb cluster (1,213 nodes, 6,212 GPUs, the default trace
// inflated to 130%: 10,866 pods with seed 42) per policy, within 10 s on
// two cores (the paper's simulator: about 600 s). The run is checked
// (every submitted pod placed or failed, the curve up to 130%) before
// the timed loop. Metric: cpu-s/op, the process's CPU time per run.
func BenchmarkFillOpenb(b *testing.B) {
	nodes, pods := openbFiles(b)
	for _, policy := range fill.Policies() {
		b.Run("policy="+policy, func(b *testing.B) {
			args := []string{"fill", "--nodes", nodes, "--trace", pods, "--policy", policy, "--seed", "42", "-o", "json"}
			var res fill.Result
			if err := json.Unmarshal(runCLI(b, args...), &res); err != nil {
				b.Fatalf("fill JSON: %v", err)
			}
			if len(res.Curves) != 1 || res.Devices != 6212 || res.Nodes != 1213 {
				b.Fatalf("want one curve on 6212 GPUs of 1213 nodes, got %d curves on %d GPUs of %d nodes", len(res.Curves), res.Devices, res.Nodes)
			}
			c := res.Curves[0]
			if c.Placed+c.Failed != c.Submitted || len(c.Points) == 0 || c.Points[len(c.Points)-1].Arrived != 130 {
				b.Fatalf("want every pod placed or failed and the curve up to 130%%, got %+v", c)
			}
			start := cpuTime(b)
			b.ResetTimer()
			for b.Loop() {
				runCLI(b, args...)
			}
			b.StopTimer()
			b.ReportMetric((cpuTime(b)-start).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
