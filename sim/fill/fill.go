package fill

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// The result's kind.
const (
	APIVersion = "drasim.io/v1alpha1"
	Kind       = "Fill"
)

// DefaultTarget is the paper's inflation: the workload requests 130% of
// the cluster's device capacity.
const DefaultTarget = 1.3

// Order is the order in which the workload's pods are submitted.
type Order string

const (
	// OrderShuffle sorts the pods by name and shuffles them with the
	// seed, as the paper's simulator does (--shuffle-pod=true).
	OrderShuffle Order = "shuffle"
	// OrderTrace keeps the trace's order (arrival time, then file order).
	OrderTrace Order = "trace"
)

// Options configure an inflation experiment.
type Options struct {
	// Sim are the scheduler's options every policy starts from.
	Sim sim.Options
	// Policies are the scoring policies to run, each on its own copy of
	// the cluster with the same workload (kube's default profile, Sim,
	// when empty).
	Policies []Policy
	// Target is the share of the device capacity the inflated workload
	// requests (DefaultTarget when 0; it must be positive).
	Target float64
	// Seeds are the runs of each policy: a seed drives the order, the
	// inflation and the scheduler's random tie-break (Sim.Seed). One
	// run with seed 0 when empty.
	Seeds []int64
	seed  int64
	// Order is OrderShuffle (default) or OrderTrace.
	Order Order
	// DeviceClass limits the devices counted as capacity to those the
	// class selects ("" counts every device of a node).
	DeviceClass string
	// Progress, when set, is called after each pod of each policy.
	Progress func(policy string, done, total int)
	// Placed, when set, is called after each pod of each run with where
	// it went, in submission order.
	Placed func(Placement)
}

// Placement is where one submitted pod went in one run.
type Placement struct {
	Policy string
	Seed   int64
	// Index is the pod's place in the submission order, from 0.
	Index int
	Pod   string
	// Node is "" for a pod that did not fit.
	Node string
	// Devices are the devices allocated to its claims, in allocation
	// order (driver/pool/device).
	Devices []string
}

// Input is what an experiment runs on.
type Input struct {
	// Snapshot is the cluster: its nodes, slices, classes, claim
	// templates, and the pods already bound (they stay). It must have no
	// pending pods: they are the workload.
	Snapshot *snapshot.Snapshot
	// Workload are the pods to submit, pending, in trace order.
	Workload []*v1.Pod
	Files    []string
}

// Result is the outcome of an experiment: one curve per policy.
type Result struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Target is the inflation target, a share of the device capacity.
	Target float64 `json:"target"`
	Seeds  []int64 `json:"seeds"`
	Order  Order   `json:"order"`
	// Devices is the device capacity (whole devices); Nodes the nodes
	// with at least one.
	Devices int `json:"devices"`
	Nodes   int `json:"nodes"`
	// WorkloadPods is the trace's pods.
	WorkloadPods int `json:"workloadPods"`
	// Shapes are the typical request shapes the fragmentation is
	// measured against, with their weights.
	Shapes []Shape `json:"shapes"`
	// Curves are the runs, by seed then policy.
	Curves []Curve `json:"curves"`
	// Means are each policy's mean curve over the seeds, with 95%
	// confidence intervals (with more than one seed).
	Means []MeanCurve `json:"means,omitempty"`
	Files []string    `json:"files,omitempty"`
}

// Curve is one policy's run.
type Curve struct {
	Policy string `json:"policy"`
	Seed   int64  `json:"seed"`
	// Submitted are the pods after the inflation (the same for every
	// policy of a seed); Requested their device request, in devices.
	Submitted int     `json:"submitted"`
	Requested float64 `json:"requested"`
	// Placed and Failed count the submitted pods.
	Placed int `json:"placed"`
	Failed int `json:"failed"`
	// Allocation is the allocated share of the device capacity at the
	// end, in percent; Fragmentation the fragmented share (percent of
	// the capacity).
	Allocation    float64 `json:"allocation"`
	Fragmentation float64 `json:"fragmentation"`
	// Points are the curve at every 1% of arrived capacity.
	Points []Point `json:"points"`
}

// Point is the curve at one percent of arrived capacity, the mean over the
// pods whose arrival rounds to it (the paper's binning).
type Point struct {
	// Arrived is the requested share of the capacity, in percent.
	Arrived int `json:"arrived"`
	// Allocation is the allocated share of the capacity, in percent.
	Allocation float64 `json:"allocation"`
	// Fragmentation is the fragmented idle capacity as a share of the
	// capacity; FragmentationRate as a share of the idle capacity; both
	// percent.
	Fragmentation     float64 `json:"fragmentation"`
	FragmentationRate float64 `json:"fragmentationRate"`
	// Pods are the pods averaged (0 when the point borrows its
	// neighbours', as the paper's scripts do for an empty bin).
	Pods int `json:"pods"`
}

// Shape is a typical request shape: CPU (milli, non-zero default
// applied), devices per pod and the share of each (milli-devices), the
// device class and selectors (Key), and its weight in the mix.
type Shape struct {
	Key         string  `json:"key"`
	MilliCPU    int64   `json:"milliCPU"`
	Devices     int64   `json:"devices"`
	MilliDevice int64   `json:"milliDevice"`
	Weight      float64 `json:"weight"`
}

// Error kinds a caller may tell apart.
var (
	// ErrNoDevices: the cluster has no device to fill.
	ErrNoDevices = errors.New("the cluster has no devices to fill")
	// ErrNoWorkload: there is no pod to submit.
	ErrNoWorkload = errors.New("the workload has no pods")
)

// Run runs the experiment for every policy.
func Run(ctx context.Context, in *Input, opts Options) (*Result, error) {
	if opts.Target == 0 {
		opts.Target = DefaultTarget
	}
	if opts.Target < 0 || math.IsNaN(opts.Target) || math.IsInf(opts.Target, 0) {
		return nil, fmt.Errorf("target share %v: want a positive number", opts.Target)
	}
	if opts.Order == "" {
		opts.Order = OrderShuffle
	}
	if opts.Order != OrderShuffle && opts.Order != OrderTrace {
		return nil, fmt.Errorf("order %q: use %s or %s", opts.Order, OrderShuffle, OrderTrace)
	}
	if len(opts.Seeds) == 0 {
		opts.Seeds = []int64{0}
	}
	if len(opts.Policies) == 0 {
		opts.Policies = []Policy{{Name: PolicyKube, Sim: opts.Sim}}
	}
	for _, p := range in.Snapshot.Pods {
		if p.Spec.NodeName == "" {
			return nil, fmt.Errorf("pod %s/%s is pending in the cluster: pending pods belong to the workload", p.Namespace, p.Name)
		}
	}
	opts.Sim = opts.Sim.WithRelease()
	if err := opts.Sim.Release().Check(in.Snapshot); err != nil {
		return nil, err
	}
	gates := opts.Sim.Gates
	inv, err := newInventory(ctx, in.Snapshot, gates, opts.DeviceClass)
	if err != nil {
		return nil, err
	}
	if len(inv.devices) == 0 {
		if opts.DeviceClass != "" {
			return nil, fmt.Errorf("%w: no node has a device of class %s", ErrNoDevices, opts.DeviceClass)
		}
		return nil, fmt.Errorf("%w: no node has a device in a ResourceSlice (for openb, give the node list, e.g. openb_node_list_gpu_node.csv)", ErrNoDevices)
	}
	if len(in.Workload) == 0 {
		return nil, ErrNoWorkload
	}
	reqs := make([]request, len(in.Workload))
	for i, p := range in.Workload {
		if reqs[i], err = inv.requestOf(p); err != nil {
			return nil, err
		}
	}
	var asked int64
	for _, r := range reqs {
		asked += r.milliDevice()
	}
	if asked == 0 {
		return nil, fmt.Errorf("%w: no pod of the workload requests a device of the cluster's", ErrNoWorkload)
	}
	shapes := typicalShapes(in.Workload, reqs)
	res := &Result{APIVersion: APIVersion, Kind: Kind, Target: opts.Target, Seeds: opts.Seeds, Order: opts.Order,
		Devices: len(inv.devices), Nodes: len(inv.nodes), WorkloadPods: len(in.Workload), Files: in.Files}
	for _, s := range shapes {
		res.Shapes = append(res.Shapes, s.Shape)
	}
	nodeNames := make([]string, len(in.Snapshot.Nodes))
	for i, n := range in.Snapshot.Nodes {
		nodeNames[i] = n.Name
	}
	for _, seed := range opts.Seeds {
		o := opts
		o.seed = seed
		seq, r := inflate(in.Workload, reqs, o, inv.capacity())
		ranks := nodeRanks(r, nodeNames)
		var requested int64
		for _, s := range seq {
			requested += reqs[s.index].total()
		}
		for _, pol := range opts.Policies {
			so, err := pol.forRun(seed, in, gates, ranks)
			if err != nil {
				return nil, fmt.Errorf("policy %s: %w", pol.Name, err)
			}
			c, err := runPolicy(ctx, in, inv, gates, so, o, pol.Name, seq, reqs, shapes)
			if err != nil {
				return nil, fmt.Errorf("policy %s, seed %d: %w", pol.Name, seed, err)
			}
			c.Seed, c.Submitted, c.Requested = seed, len(seq), round(float64(requested)/milli, 3)
			res.Curves = append(res.Curves, *c)
		}
	}
	if len(opts.Seeds) > 1 {
		names := make([]string, len(opts.Policies))
		for i, p := range opts.Policies {
			names[i] = p.Name
		}
		res.Means = means(res.Curves, names)
	}
	return res, nil
}

// submission is one pod of the inflated workload: the workload pod it
// copies and its name.
type submission struct {
	index int
	name  string
}

// runPolicy submits the pods to a fresh cluster scheduled with one policy.
func runPolicy(ctx context.Context, in *Input, inv *stock, gates feature.Gates, so sim.Options, opts Options, policy string, seq []submission, reqs []request, shapes []shape) (*Curve, error) {
	so = so.WithRelease()
	c := cluster.Build(in.Snapshot, gates)
	e, err := sim.NewEngine(c, so)
	if err != nil {
		return nil, err
	}
	sched := e.Scheduler(so.ScheduleOptions())
	st := newState(inv, c, shapes)
	if err := st.claimed(c.DRA().Claims()); err != nil {
		return nil, err
	}
	curve := &Curve{Policy: policy}
	events := make([]event, 0, len(seq))
	var arrived int64
	for i, s := range seq {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src := in.Workload[s.index]
		pod := src.DeepCopy()
		pod.Name, pod.UID, pod.ResourceVersion = s.name, "", ""
		if err := c.AddPod(pod); err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		a := sched.SchedulePod(ctx, pod)
		if a.Err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, a.Err)
		}
		if a.Node == "" {
			// Not placed: the paper's simulator deletes the pod and goes
			// on; it is never tried again.
			curve.Failed++
			if _, err := c.RemovePod(pod); err != nil {
				return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
			if opts.Placed != nil {
				opts.Placed(Placement{Policy: policy, Seed: opts.seed, Index: i, Pod: pod.Name})
			}
		} else {
			curve.Placed++
			claims, err := c.DRA().PodClaims(pod)
			if err != nil {
				return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
			if err := st.claimed(claims); err != nil {
				return nil, err
			}
			st.nodeChanged(a.Node)
			if opts.Placed != nil {
				opts.Placed(Placement{Policy: policy, Seed: opts.seed, Index: i, Pod: pod.Name, Node: a.Node, Devices: allocated(claims)})
			}
		}
		arrived += reqs[s.index].total()
		events = append(events, st.event(arrived))
		if opts.Progress != nil {
			opts.Progress(policy, i+1, len(seq))
		}
	}
	curve.Points = bin(events, inv.capacity(), opts.Target)
	if n := len(events); n > 0 {
		last := events[n-1]
		curve.Allocation = round(100*float64(last.used)/float64(inv.capacity()), 2)
		curve.Fragmentation = round(100*last.frag/float64(inv.capacity()), 2)
	}
	return curve, nil
}

// allocated lists the devices of the claims' allocations.
func allocated(claims []*resourceapi.ResourceClaim) []string {
	var out []string
	for _, c := range claims {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			out = append(out, r.Driver+"/"+r.Pool+"/"+r.Device)
		}
	}
	return out
}

// round rounds half to even at the given decimals, as Python's round,
// which the paper's scripts use.
func round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.RoundToEven(x*p) / p
}

// keyOf joins parts of a shape key.
func keyOf(parts ...string) string { return strings.Join(parts, "|") }
