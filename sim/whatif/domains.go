package whatif

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/result"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// DomainNode is the failure domain "each node on its own".
const DomainNode = "node"

// DomainOptions configure a failure-domain analysis.
type DomainOptions struct {
	// Domain is DomainNode, or a node label whose values are the domains
	// (nodes without the label are in no domain).
	Domain string
	// SpareGroup and Spares: that many nodes of the NodeGroup are added
	// before each domain is removed ("N spare nodes absorb the loss").
	SpareGroup string
	Spares     int
	// Sim configures each replay (plugins, seed, gates); each domain's
	// replay runs on one worker.
	Sim sim.Options
	// Workers is the number of domains evaluated at once (default
	// GOMAXPROCS).
	Workers int
	// Progress, when set, is called after each domain's replay with the
	// domains done and their number, from the workers' goroutines.
	Progress func(done, total int)
}

// Key names the options in messages and reports: "node",
// "topology.kubernetes.io/zone + 2 spare(s) of h100".
func (o DomainOptions) Key() string {
	k := o.Domain
	if o.Spares > 0 {
		k += fmt.Sprintf(" + %d spare(s) of %s", o.Spares, o.SpareGroup)
	}
	return k
}

// Resilience is what losing each failure domain does to the replayed
// cluster.
type Resilience struct {
	// Domain is "node" or the label whose values are the domains.
	Domain     string `json:"domain"`
	SpareGroup string `json:"spareGroup,omitempty"`
	Spares     int    `json:"spares,omitempty"`
	// Domains counts the domains evaluated; Stranding those whose loss
	// leaves at least one of their pods pending.
	Domains   int `json:"domains"`
	Stranding int `json:"stranding"`
	// Losses are the domains, the worst first: most pods stranded, then
	// the highest stranded priority, then by name.
	Losses []DomainLoss `json:"losses"`
}

// DomainLoss is what losing one domain does: its pods are queued again on
// the rest of the cluster, and some may find no room.
type DomainLoss struct {
	Domain string `json:"domain"`
	Nodes  int    `json:"nodes"`
	// Pods is the pods the domain ran that were queued again (DaemonSet
	// and static pods go with their nodes and are not counted).
	Pods     int `json:"pods"`
	Stranded int `json:"stranded"`
	// MaxPriority is the highest priority of a stranded pod (0 when none).
	MaxPriority int32 `json:"maxPriority"`
	// Priorities counts stranded pods per priority, highest first.
	Priorities []PriorityCount `json:"priorities,omitempty"`
	// MissingDevices counts the devices the stranded pods' claims ask for,
	// per DeviceClass, for the pods the DRA allocator could not serve.
	MissingDevices []DeviceCount `json:"missingDevices,omitempty"`
	// StrandedPods are the stranded pods, in queue order.
	StrandedPods []StrandedPod `json:"strandedPods,omitempty"`
}

// PriorityCount is how many stranded pods have one priority.
type PriorityCount struct {
	Priority int32 `json:"priority"`
	Pods     int   `json:"pods"`
}

// DeviceCount is a number of devices of a DeviceClass.
type DeviceCount struct {
	Class   string `json:"class"`
	Devices int64  `json:"devices"`
}

// StrandedPod is a pod of the lost domain that fits nowhere else.
type StrandedPod struct {
	Pod      string `json:"pod"`
	Priority int32  `json:"priority"`
	Message  string `json:"message"`
}

// StrandsAbove counts the domains whose loss strands a pod with a priority
// above p.
func (r *Resilience) StrandsAbove(p int32) int {
	n := 0
	for _, l := range r.Losses {
		if l.Stranded > 0 && l.MaxPriority > p {
			n++
		}
	}
	return n
}

// Domains removes each failure domain from its own copy of the replayed
// cluster (cluster.CloneWithout), with the spares added first, replays the
// domain's pods on the rest and reports what each loss strands. Copies are
// evaluated in parallel; the run is only read. Pods that were pending
// after the replay are not tried again: they are stranded already.
func Domains(ctx context.Context, run *sim.Run, opts DomainOptions) (*Resilience, error) {
	if opts.Domain == "" {
		opts.Domain = DomainNode
	}
	domains, members := domainsOf(run.Cluster.Snapshot().Nodes, run.Cluster, opts.Domain)
	if len(domains) == 0 {
		return nil, fmt.Errorf("no node has the label %q: no failure domain to remove", opts.Domain)
	}
	var spares *spareNodes
	if opts.Spares > 0 {
		var err error
		if spares, err = newSpares(run, opts.SpareGroup, opts.Spares); err != nil {
			return nil, err
		}
	}
	simOpts := opts.Sim
	simOpts.Parallelism = 1
	simOpts.Progress = nil
	simOpts.OnlyQueued = true
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if opts.Progress != nil {
		opts.Progress(0, len(domains))
	}
	losses := make([]DomainLoss, len(domains))
	errs := make([]error, len(domains))
	next := make(chan int)
	var wg sync.WaitGroup
	var done atomic.Int64
	for range min(workers, len(domains)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				losses[i], errs[i] = lose(ctx, run, spares, domains[i], members[i], simOpts)
				if n := done.Add(1); opts.Progress != nil {
					opts.Progress(int(n), len(domains))
				}
			}
		}()
	}
	for i := range domains {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("losing %s %s: %w", opts.Domain, domains[i], err)
		}
	}
	r := &Resilience{Domain: opts.Domain, SpareGroup: opts.SpareGroup, Spares: opts.Spares, Domains: len(domains), Losses: losses}
	for _, l := range losses {
		if l.Stranded > 0 {
			r.Stranding++
		}
	}
	sort.SliceStable(r.Losses, func(i, j int) bool {
		a, b := r.Losses[i], r.Losses[j]
		if a.Stranded != b.Stranded {
			return a.Stranded > b.Stranded
		}
		if a.MaxPriority != b.MaxPriority {
			return a.MaxPriority > b.MaxPriority
		}
		return a.Domain < b.Domain
	})
	return r, nil
}

// spareNodes are new nodes of a NodeGroup, made once and added to every
// copy (nodes and slices shared read-only, daemon pods copied).
type spareNodes struct {
	nodes  []*v1.Node
	slices map[string][]*resourceapi.ResourceSlice
	pods   []*v1.Pod
}

func newSpares(run *sim.Run, group string, n int) (*spareNodes, error) {
	e := newEditor(run.Cluster.Snapshot())
	e.out = &result.Edit{Source: "spares"}
	ed := &Edit{AddNodes: &AddNodes{Count: n, NodeGroup: group}, Source: "spares", Index: -1}
	if err := e.addNodes(ed); err != nil {
		return nil, err
	}
	sp := &spareNodes{slices: map[string][]*resourceapi.ResourceSlice{}}
	added := map[string]bool{}
	for _, name := range e.out.Nodes {
		added[name] = true
	}
	for _, node := range e.s.Nodes {
		if added[node.Name] {
			sp.nodes = append(sp.nodes, node)
		}
	}
	for _, sl := range e.s.ResourceSlices {
		if sl.Spec.NodeName != nil && added[*sl.Spec.NodeName] {
			sp.slices[*sl.Spec.NodeName] = append(sp.slices[*sl.Spec.NodeName], sl)
		}
	}
	for _, m := range e.out.Added {
		for _, p := range e.s.Pods {
			if key(p.Namespace, p.Name) == m.Pod {
				sp.pods = append(sp.pods, p)
			}
		}
	}
	return sp, nil
}

// domainsOf returns the domains in name order and each one's nodes.
func domainsOf(nodes []*v1.Node, c *cluster.Cluster, domain string) ([]string, [][]string) {
	byDomain := map[string][]string{}
	for _, n := range nodes {
		if c != nil && c.Node(n.Name) == nil {
			continue
		}
		d := n.Name
		if domain != DomainNode {
			v, ok := n.Labels[domain]
			if !ok {
				continue
			}
			d = v
		}
		byDomain[d] = append(byDomain[d], n.Name)
	}
	names := make([]string, 0, len(byDomain))
	for d := range byDomain {
		names = append(names, d)
	}
	sort.Strings(names)
	members := make([][]string, len(names))
	for i, d := range names {
		members[i] = byDomain[d]
	}
	return names, members
}

// lose evaluates the loss of one domain on its own copy.
func lose(ctx context.Context, run *sim.Run, spares *spareNodes, domain string, nodes []string, opts sim.Options) (DomainLoss, error) {
	loss := DomainLoss{Domain: domain, Nodes: len(nodes)}
	if run.Cluster.Requeued(nodes) == 0 {
		return loss, nil // nothing to place elsewhere
	}
	f, lost := run.Cluster.CloneWithout(nodes)
	if spares != nil {
		// The spares run before the loss: their daemon pods go first.
		requeued := f.Queue()
		f.SetQueue(nil)
		for _, n := range spares.nodes {
			f.AddNode(n, spares.slices[n.Name])
		}
		for _, p := range spares.pods {
			f.AddPending(p.DeepCopy())
		}
		f.SetQueue(append(f.Queue(), requeued...))
	}
	fr, err := sim.SimulateCluster(ctx, f, opts)
	if err != nil {
		return loss, err
	}
	loss.Pods = len(lost.Requeued)
	outcomes := make(map[string]*result.Pod, len(fr.Result.Pods))
	for i := range fr.Result.Pods {
		outcomes[fr.Result.Pods[i].Key()] = &fr.Result.Pods[i]
	}
	priorities := map[int32]int{}
	devices := map[string]int64{}
	for _, pod := range lost.Requeued {
		p := outcomes[key(pod.Namespace, pod.Name)]
		if p == nil || p.Phase != result.PhaseUnschedulable {
			continue
		}
		loss.Stranded++
		if loss.Stranded == 1 || p.Priority > loss.MaxPriority {
			loss.MaxPriority = p.Priority
		}
		priorities[p.Priority]++
		loss.StrandedPods = append(loss.StrandedPods, StrandedPod{Pod: p.Key(), Priority: p.Priority, Message: p.Message})
		if rejectedByDRA(p) {
			for class, n := range requestedDevices(fr, p) {
				devices[class] += n
			}
		}
	}
	for prio, n := range priorities {
		loss.Priorities = append(loss.Priorities, PriorityCount{Priority: prio, Pods: n})
	}
	sort.Slice(loss.Priorities, func(i, j int) bool { return loss.Priorities[i].Priority > loss.Priorities[j].Priority })
	for class, n := range devices {
		loss.MissingDevices = append(loss.MissingDevices, DeviceCount{Class: class, Devices: n})
	}
	sort.Slice(loss.MissingDevices, func(i, j int) bool { return loss.MissingDevices[i].Class < loss.MissingDevices[j].Class })
	return loss, nil
}

func rejectedByDRA(p *result.Pod) bool {
	for _, r := range p.Reasons {
		if r.Plugin == "DynamicResources" {
			return true
		}
	}
	return false
}

// requestedDevices counts the devices a pod's claims ask for, by
// DeviceClass; a prioritized list counts its first alternative, named
// with the others ("h100|a100").
func requestedDevices(run *sim.Run, p *result.Pod) map[string]int64 {
	out := map[string]int64{}
	for _, c := range p.Claims {
		claim, err := run.Cluster.DRA().Claim(p.Namespace, c.Name)
		if err != nil {
			continue
		}
		for _, r := range claim.Spec.Devices.Requests {
			switch {
			case r.Exactly != nil:
				out[r.Exactly.DeviceClassName] += requestCount(r.Exactly.AllocationMode, r.Exactly.Count)
			case len(r.FirstAvailable) > 0:
				var names []string
				for _, sub := range r.FirstAvailable {
					names = append(names, sub.DeviceClassName)
				}
				out[strings.Join(names, "|")] += requestCount(r.FirstAvailable[0].AllocationMode, r.FirstAvailable[0].Count)
			}
		}
	}
	return out
}

// requestCount is the devices a request asks for; "All" counts as one.
func requestCount(mode resourceapi.DeviceAllocationMode, count int64) int64 {
	if mode == resourceapi.DeviceAllocationModeAll || count == 0 {
		return 1
	}
	return count
}
