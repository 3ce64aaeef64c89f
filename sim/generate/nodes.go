package generate

import (
	"fmt"
	"github.com/drasim/drasim/sim/snapshot"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Driver publishes every generated device.
const Driver = "gpu.example.com"

// Device classes.
const (
	ClassGPU  = "gpu.example.com"
	ClassH100 = "h100.gpu.example.com"
	ClassA100 = "a100.gpu.example.com" // a whole A100
	ClassMIG  = "mig.gpu.example.com"  // an A100 partition
	ClassL4   = "l4.gpu.example.com"
)

// Device attributes (in the driver's domain unless qualified).
const (
	attrModel    = "model"
	attrProfile  = "profile"
	attrIndex    = "index"
	attrNUMA     = "numaNode"
	attrPCIeRoot = "resource.kubernetes.io/pcieRoot"
	capMemory    = "memory"
)

// shape is what a node profile looks like from the outside. The sizes are
// those of real cloud instances with the same GPUs.
type shape struct {
	instanceType string
	cpu, memory  string // capacity
	// allocatable is capacity minus what kubelet and the system reserve.
	cpuAlloc, memoryAlloc string
}

var shapes = map[string]shape{
	ProfileDGXH100: {"p5.48xlarge", "192", "2048Gi", "191", "2000Gi"},
	ProfileA100MIG: {"p4de.24xlarge", "96", "1152Gi", "95", "1120Gi"},
	ProfileL4:      {"g6.12xlarge", "48", "192Gi", "47", "180Gi"},
	ProfileCPU:     {"m7i.8xlarge", "32", "128Gi", "31", "120Gi"},
}

// ProfileLabel is the node label that names the profile a generated node
// was made from.
const ProfileLabel = "drasim.io/profile"

func (sh *shared) makeNode(name, profile, zone string) *v1.Node {
	size := shapes[profile]
	return &v1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				v1.LabelHostname:           name,
				v1.LabelInstanceTypeStable: size.instanceType,
				v1.LabelTopologyZone:       zone,
				v1.LabelOSStable:           "linux",
				v1.LabelArchStable:         "amd64",
				ProfileLabel:               profile,
			},
		},
		Status: v1.NodeStatus{
			Capacity: memo(sh.resources, profile+"/capacity", func() v1.ResourceList {
				return v1.ResourceList{
					v1.ResourceCPU:    resource.MustParse(size.cpu),
					v1.ResourceMemory: resource.MustParse(size.memory),
					v1.ResourcePods:   resource.MustParse("110"),
				}
			}),
			Allocatable: memo(sh.resources, profile+"/allocatable", func() v1.ResourceList {
				return v1.ResourceList{
					v1.ResourceCPU:    resource.MustParse(size.cpuAlloc),
					v1.ResourceMemory: resource.MustParse(size.memoryAlloc),
					v1.ResourcePods:   resource.MustParse("110"),
				}
			}),
		},
	}
}

// shared memoizes the parts that many objects of one snapshot have alike:
// the devices of each slice of a node profile and the A100 counter sets
// (nodes differ only in their pool, node and slice names; an A100 node's
// 104 devices, with their attribute, capacity and counter maps, are about
// 300 KB), a profile's node capacity and allocatable, and the containers,
// labels and claims of pods of the same shape. The objects refer to one
// copy instead of holding their own. Like every snapshot object, these are
// read-only: whoever wants to change an object deep-copies it first, as
// applyTaintRules, the autoscaler's renameSlice and cluster.Build do.
// Shared lists have no spare capacity, so that an append never writes
// into the shared array.
type shared struct {
	devices    map[string][]resourceapi.Device // by profile and slice index
	counters   []resourceapi.CounterSet        // of an A100 node
	resources  map[string]v1.ResourceList      // by profile, capacity or allocatable
	containers map[string][]v1.Container       // by image, requests and claim
	labels     map[string]map[string]string    // of pods, by workload
	podClaims  map[string][]v1.PodResourceClaim
	priority   *int32
}

func newShared() *shared {
	return &shared{
		devices:    map[string][]resourceapi.Device{},
		resources:  map[string]v1.ResourceList{},
		containers: map[string][]v1.Container{},
		labels:     map[string]map[string]string{},
		podClaims:  map[string][]v1.PodResourceClaim{},
		priority:   ptr.To[int32](0),
	}
}

// memo returns m[key], made by mk on first use.
func memo[V any](m map[string]V, key string, mk func() V) V {
	v, ok := m[key]
	if !ok {
		v = mk()
		m[key] = v
	}
	return v
}

// list returns the device list under key, made by mk on first use.
func (sh *shared) list(key string, mk func() []resourceapi.Device) []resourceapi.Device {
	return memo(sh.devices, key, func() []resourceapi.Device { return slices.Clip(mk()) })
}

// slicesFor returns the ResourceSlices a node's driver publishes. Each node
// is its own pool, named after the node.
func (sh *shared) slicesFor(node, profile string) []*resourceapi.ResourceSlice {
	switch profile {
	case ProfileDGXH100:
		devs := sh.list(profile, func() []resourceapi.Device {
			devs := make([]resourceapi.Device, 8)
			for i := range devs {
				// Two GPUs per PCIe switch, four per socket, as in a DGX H100.
				devs[i] = gpu(i, "h100", "80Gi", i/4, fmt.Sprintf("pci0000:%02x", 0x10*(i/2+1)))
			}
			return devs
		})
		return []*resourceapi.ResourceSlice{slice(node+"-gpus", node, 1, devs, nil)}
	case ProfileL4:
		devs := sh.list(profile, func() []resourceapi.Device {
			devs := make([]resourceapi.Device, 4)
			for i := range devs {
				devs[i] = gpu(i, "l4", "24Gi", i/2, fmt.Sprintf("pci0000:%02x", 0x10*(i/2+1)))
			}
			return devs
		})
		return []*resourceapi.ResourceSlice{slice(node+"-gpus", node, 1, devs, nil)}
	case ProfileA100MIG:
		return sh.migSlices(node)
	}
	return nil
}

// migPartition is one MIG profile of an A100 80GB: how many compute slices
// and how much memory it takes, and how many fit on one GPU.
type migPartition struct {
	profile string
	slices  int64
	memory  string
	count   int
}

var migPartitions = []migPartition{
	{"3g.40gb", 3, "40Gi", 2},
	{"2g.20gb", 2, "20Gi", 3},
	{"1g.10gb", 1, "10Gi", 7},
}

const (
	a100GPUs         = 8
	a100GPUsPerSlice = 4 // 13 devices per GPU; a slice with counters holds at most 64
	a100Slices       = 7 // compute slices of one A100
	a100Memory       = "80Gi"
)

// migSlices publishes an A100 node the way a partitionable-devices driver
// does: one slice with a counter set per GPU (compute slices and memory),
// and device slices with the whole GPU and every partition, each consuming
// the counters of its GPU. The allocator then never gives out more of a GPU
// than it has: a whole GPU excludes its partitions and vice versa.
func (sh *shared) migSlices(node string) []*resourceapi.ResourceSlice {
	const deviceSlices = a100GPUs / a100GPUsPerSlice
	count := int64(1 + deviceSlices)
	if sh.counters == nil {
		sets := make([]resourceapi.CounterSet, a100GPUs)
		for g := range sets {
			sets[g] = resourceapi.CounterSet{
				Name:     counterSetName(g),
				Counters: counters(a100Slices, a100Memory),
			}
		}
		sh.counters = sets
	}
	out := []*resourceapi.ResourceSlice{slice(node+"-counters", node, count, nil, sh.counters)}
	for s := range deviceSlices {
		devs := sh.list(fmt.Sprintf("%s/%d", ProfileA100MIG, s), func() []resourceapi.Device {
			var devs []resourceapi.Device
			for g := s * a100GPUsPerSlice; g < (s+1)*a100GPUsPerSlice; g++ {
				full := gpu(g, "a100", a100Memory, g/4, "")
				full.Attributes[attrProfile] = str("full")
				full.ConsumesCounters = consumes(g, a100Slices, a100Memory)
				devs = append(devs, full)
				for _, p := range migPartitions {
					for k := range p.count {
						devs = append(devs, resourceapi.Device{
							Name: fmt.Sprintf("gpu-%d-mig-%s-%d", g, p.profile[:2], k),
							Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
								attrModel:   str("a100"),
								attrProfile: str(p.profile),
								attrIndex:   num(int64(g)),
								attrNUMA:    num(int64(g / 4)),
							},
							Capacity:         map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{capMemory: {Value: resource.MustParse(p.memory)}},
							ConsumesCounters: consumes(g, p.slices, p.memory),
						})
					}
				}
			}
			return devs
		})
		out = append(out, slice(fmt.Sprintf("%s-gpus-%d", node, s), node, count, devs, nil))
	}
	return out
}

func counterSetName(gpu int) string { return fmt.Sprintf("gpu-%d", gpu) }

func counters(slices int64, memory string) map[string]resourceapi.Counter {
	return map[string]resourceapi.Counter{
		"slices": {Value: *resource.NewQuantity(slices, resource.DecimalSI)},
		"memory": {Value: resource.MustParse(memory)},
	}
}

func consumes(gpu int, slices int64, memory string) []resourceapi.DeviceCounterConsumption {
	return []resourceapi.DeviceCounterConsumption{{CounterSet: counterSetName(gpu), Counters: counters(slices, memory)}}
}

// gpu is a whole GPU. pcieRoot is left out when empty.
func gpu(index int, model, memory string, numa int, pcieRoot string) resourceapi.Device {
	d := resourceapi.Device{
		Name: fmt.Sprintf("gpu-%d", index),
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			attrModel: str(model),
			attrIndex: num(int64(index)),
			attrNUMA:  num(int64(numa)),
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{capMemory: {Value: resource.MustParse(memory)}},
	}
	if pcieRoot != "" {
		d.Attributes[attrPCIeRoot] = str(pcieRoot)
	}
	return d
}

func slice(name, node string, count int64, devs []resourceapi.Device, sets []resourceapi.CounterSet) *resourceapi.ResourceSlice {
	return &resourceapi.ResourceSlice{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:         Driver,
			Pool:           resourceapi.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: count},
			NodeName:       ptr.To(node),
			Devices:        devs,
			SharedCounters: sets,
		},
	}
}

func str(s string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{StringValue: ptr.To(s)}
}
func num(n int64) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{IntValue: ptr.To(n)}
}
func cel(expr string) []resourceapi.DeviceSelector {
	return []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: expr}}}
}

// deviceClasses: one for any GPU of the driver, one per model, one for A100
// partitions. Model classes select on attributes in CEL, as drivers' own
// classes do.
func deviceClasses() []*resourceapi.DeviceClass {
	attr := `device.attributes["` + Driver + `"]`
	driver := `device.driver == "` + Driver + `"`
	mk := func(name, expr string) *resourceapi.DeviceClass {
		return &resourceapi.DeviceClass{
			TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"},
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       resourceapi.DeviceClassSpec{Selectors: cel(expr)},
		}
	}
	return []*resourceapi.DeviceClass{
		mk(ClassGPU, driver),
		mk(ClassH100, driver+` && `+attr+`.model == "h100"`),
		mk(ClassA100, driver+` && `+attr+`.model == "a100" && `+attr+`.profile == "full"`),
		mk(ClassMIG, driver+` && `+attr+`.model == "a100" && `+attr+`.profile != "full"`),
		mk(ClassL4, driver+` && `+attr+`.model == "l4"`),
	}
}

// prices are the on-demand prices per hour of the profiles' instance
// types (us-east-1, rounded), for the NodeGroups' pricePerHour.
var prices = map[string]float64{ProfileDGXH100: 98.32, ProfileA100MIG: 40.97, ProfileL4: 4.60, ProfileCPU: 1.61}

// nodeGroups makes a NodeGroup per profile that has nodes: the profile's
// nodes (by the drasim.io/profile label), new nodes copied from its first.
func nodeGroups(s *snapshot.Snapshot, counts map[string]int, maxPerGroup int) []*snapshot.NodeGroup {
	first := map[string]string{}
	for _, n := range s.Nodes {
		p := n.Labels["drasim.io/profile"]
		if _, ok := first[p]; !ok {
			first[p] = n.Name
		}
	}
	var out []*snapshot.NodeGroup
	for _, p := range sortedKeys(counts) {
		if counts[p] == 0 {
			continue
		}
		maxSize := maxPerGroup
		if maxSize == 0 {
			maxSize = max(4*counts[p], 8)
		}
		maxSize = max(maxSize, counts[p])
		price := prices[p]
		out = append(out, &snapshot.NodeGroup{
			TypeMeta:   metav1.TypeMeta{APIVersion: snapshot.NodeGroupAPIVersion, Kind: "NodeGroup"},
			ObjectMeta: metav1.ObjectMeta{Name: p},
			Spec: snapshot.NodeGroupSpec{
				MinSize: 0, MaxSize: int32(maxSize), PricePerHour: &price, TemplateFrom: first[p],
				NodeSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"drasim.io/profile": p}},
			},
		})
	}
	return out
}
