package app

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim/sweep"
	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

type sweepJobFlags struct {
	Name                 string
	Namespace            string
	Image                string
	ImagePullPolicy      string
	Completions          int
	Parallelism          int
	Workers              int
	CPU                  string
	Memory               string
	MemoryLimit          string
	NoMeasure            bool
	InputsPVC            string
	ResultsPVC           string
	BackoffLimitPerIndex int32
	ActiveDeadline       time.Duration
}

func newSweepJobCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &sweepJobFlags{}
	cmd := &cobra.Command{
		Use:   "job SWEEP.yaml --image IMAGE --completions N",
		Short: "Write the Kubernetes Indexed Job that runs a sweep in N shards",
		Long: `Write a ready batch/v1 Job (completionMode: Indexed) that runs the sweep in
--completions shards, --parallelism pods at a time: each pod runs
'drasim sweep --shard JOB_COMPLETION_INDEX/N', so its completion index is its
shard. The sweep file and every file its runs read go into a ConfigMap
mounted at /sweep (or, when they are larger than a ConfigMap holds, come from
a volume: --inputs-pvc). Results go to a PersistentVolumeClaim mounted at
/results (--results-pvc), or to an emptyDir that each pod prints to its log
when done, for the collector in docs/sweeps.md.

Requests are sized from a measured run: the sweep's first run is run here,
and the memory request covers the inputs, --workers runs at their peak and a
margin (--memory overrides it; --no-measure skips the run). The image comes
from --image; the repository's Dockerfile builds it. Writes YAML to standard
output: kubectl apply -f - takes it.`,
		Example: `  drasim sweep job expanders.yaml --image registry.example.com/drasim:v0.1 --completions 10 | kubectl apply -f -
  drasim sweep job big.yaml --image drasim:dev --completions 20 --parallelism 5 --inputs-pvc sweep-inputs --results-pvc sweep-results`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweepJob(cmd.Context(), streams, g, f, args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Name, "name", "", "name of the Job (default: the sweep's name); its ConfigMap is NAME-inputs")
	fs.StringVar(&f.Namespace, "namespace", "", "namespace of the Job and ConfigMap (default: kubectl's)")
	fs.StringVar(&f.Image, "image", "", "container image with drasim as its entrypoint (required; see the repository's Dockerfile)")
	fs.StringVar(&f.ImagePullPolicy, "image-pull-policy", "", "Always, IfNotPresent or Never (default: Kubernetes')")
	fs.IntVar(&f.Completions, "completions", 0, "number of shards, one pod each (required)")
	fs.IntVar(&f.Parallelism, "parallelism", 0, "pods at once (default: --completions)")
	fs.IntVar(&f.Workers, "workers", 1, "runs at once in each pod (its CPU request)")
	fs.StringVar(&f.CPU, "cpu", "", "CPU request of each pod (default: --workers)")
	fs.StringVar(&f.Memory, "memory", "", "memory request of each pod, and its --max-memory (default: sized from a measured run)")
	fs.StringVar(&f.MemoryLimit, "memory-limit", "", "memory limit of each pod (default: 1.5 times the request)")
	fs.BoolVar(&f.NoMeasure, "no-measure", false, "do not run the first run to size the memory request")
	fs.StringVar(&f.InputsPVC, "inputs-pvc", "", "PersistentVolumeClaim that holds the sweep's files, laid out as in the sweep's directory, instead of a ConfigMap")
	fs.StringVar(&f.ResultsPVC, "results-pvc", "", "PersistentVolumeClaim for the results (default: an emptyDir printed to the pod's log)")
	fs.Int32Var(&f.BackoffLimitPerIndex, "backoff-limit-per-index", 1, "retries of a failed shard")
	fs.DurationVar(&f.ActiveDeadline, "active-deadline", 0, "stop the Job after this long (0: no limit)")
	return setFormats(cmd, "table", "yaml")
}

// memoryMargin is what a pod needs beyond the Go heap: the binary, the
// runtime, the collector's headroom.
const memoryMargin = 64 << 20

func runSweepJob(ctx context.Context, streams Streams, g *GlobalOptions, f *sweepJobFlags, path string) error {
	if f.Image == "" {
		return usageErrorf("no image: use --image (build one with the repository's Dockerfile)")
	}
	if f.Completions < 1 {
		return usageErrorf("--completions must be at least 1 (the number of shards)")
	}
	if f.Workers < 1 {
		return usageErrorf("--workers must be at least 1, got %d", f.Workers)
	}
	switch v1.PullPolicy(f.ImagePullPolicy) {
	case "", v1.PullAlways, v1.PullIfNotPresent, v1.PullNever:
	default:
		return usageErrorf("--image-pull-policy %q: use Always, IfNotPresent or Never", f.ImagePullPolicy)
	}
	opts := sweep.JobOptions{
		Name: f.Name, Namespace: f.Namespace, Image: f.Image, ImagePullPolicy: v1.PullPolicy(f.ImagePullPolicy),
		Completions: f.Completions, Parallelism: f.Parallelism, Workers: f.Workers,
		InputsPVC: f.InputsPVC, ResultsPVC: f.ResultsPVC, BackoffLimitPerIndex: f.BackoffLimitPerIndex,
		ActiveDeadlineSeconds: int64(f.ActiveDeadline.Seconds()),
	}
	var err error
	if opts.CPU, err = quantityFlag("cpu", f.CPU, resource.MustParse(fmt.Sprint(f.Workers))); err != nil {
		return err
	}
	if opts.Memory, err = quantityFlag("memory", f.Memory, resource.Quantity{}); err != nil {
		return err
	}
	if opts.MemoryLimit, err = quantityFlag("memory-limit", f.MemoryLimit, resource.Quantity{}); err != nil {
		return err
	}
	plan, in, err := loadSweep(streams, path)
	if err != nil {
		return err
	}
	bundle, err := plan.Bundle()
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	var measured *sweep.Measurement
	if f.Memory == "" && !f.NoMeasure {
		if ctx == nil {
			ctx = context.Background()
		}
		m := sweep.Measure(ctx, plan, in, sweepExec)
		measured = &m
		if m.Error != "" {
			fmt.Fprintf(streams.Err, "warning: the measured run failed (%s); its figures may be too low\n", m.Error)
		}
		need := float64(m.BaseMemory+int64(f.Workers)*m.RunMemory)*1.25 + memoryMargin
		opts.Memory = mebibytes(need)
	}
	if opts.MemoryLimit.IsZero() && !opts.Memory.IsZero() {
		opts.MemoryLimit = mebibytes(float64(opts.Memory.Value()) * 1.5)
	}
	objects, err := plan.Job(bundle, opts)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	data, err := sweep.WriteObjects(objects)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	name := opts.Name
	if name == "" {
		name = plan.Name
	}
	perShard := (len(plan.Runs) + f.Completions - 1) / f.Completions
	var head strings.Builder
	fmt.Fprintf(&head, "# drasim sweep job: sweep %s, %d runs in %d shards of up to %d runs, %d worker(s) per pod.\n", plan.Name, len(plan.Runs), f.Completions, perShard, f.Workers)
	if measured != nil {
		est := time.Duration(measured.Seconds * float64(perShard) / float64(f.Workers) * float64(time.Second))
		fmt.Fprintf(&head, "# Measured run 0: %.2fs, inputs %s, run peak +%s; a shard takes about %s.\n", measured.Seconds, report.FormatMiB(measured.BaseMemory), report.FormatMiB(measured.RunMemory), est.Round(time.Second))
	}
	if opts.ResultsPVC != "" {
		fmt.Fprintf(&head, "# Results: PersistentVolumeClaim %s, one shard-I-of-N.jsonl/.csv per shard; merge them with\n#   drasim sweep merge DIR --output-dir results/\n", opts.ResultsPVC)
	} else {
		fmt.Fprintf(&head, "# Results: each pod prints its rows to its log when done. Collect and merge them with\n")
		fmt.Fprintf(&head, "#   kubectl wait --for=condition=complete job/%s --timeout=24h\n", name)
		fmt.Fprintf(&head, "#   mkdir -p logs && for p in $(kubectl get pods -l batch.kubernetes.io/job-name=%s --field-selector=status.phase=Succeeded -o name); do kubectl logs $p > logs/${p#pod/}.log; done\n", name)
		fmt.Fprintf(&head, "#   drasim sweep merge logs/ --from-logs --output-dir results/\n")
	}
	if opts.InputsPVC != "" {
		fmt.Fprintf(&head, "# Inputs: copy %s to the root of PersistentVolumeClaim %s (the sweep file is %s there).\n", bundle.Root, opts.InputsPVC, bundle.Sweep)
	}
	if _, err := io.WriteString(streams.Out, head.String()); err != nil {
		return err
	}
	_, err = streams.Out.Write(data)
	return err
}

// quantityFlag parses a resource quantity flag, def when empty.
func quantityFlag(name, s string, def resource.Quantity) (resource.Quantity, error) {
	if s == "" {
		return def, nil
	}
	q, err := resource.ParseQuantity(s)
	if err != nil || q.Sign() <= 0 {
		return resource.Quantity{}, usageErrorf("--%s %q: want a positive quantity such as 2, 500m, 512Mi or 4Gi", name, s)
	}
	return q, nil
}

// mebibytes rounds bytes up to whole MiB.
func mebibytes(b float64) resource.Quantity {
	return resource.MustParse(fmt.Sprintf("%dMi", int64(math.Ceil(b/(1<<20)))))
}
