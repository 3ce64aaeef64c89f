package timeline

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The Alibaba GPU cluster trace (cluster-trace-gpu-v2023, Weng et al.,
// "Beware of Fragmentation", USENIX ATC'23) mapped to DRA: every GPU is a
// device of driver openb.alibaba.com with its model as an attribute and
// 1000 milli-GPUs of consumable capacity (allowMultipleAllocations), so
// that a GPU-sharing pod (num_gpu 1, gpu_milli < 1000) takes its share of
// one GPU and a whole-GPU pod takes all of it. docs/timeline.md has the
// table of columns.
const (
	OpenbDriver = "openb.alibaba.com"
	// OpenbDeviceClass selects every openb GPU.
	OpenbDeviceClass = "gpu.openb.alibaba.com"
	// OpenbModelLabel is the GPU model on openb nodes.
	OpenbModelLabel  = "openb.alibaba.com/model"
	openbCapacity    = resourceapi.QualifiedName(OpenbDriver + "/milli")
	openbNamespace   = metav1.NamespaceDefault
	openbPodsPerNode = 256
)

// openbPriority maps the trace's QoS classes to pod priorities: latency
// sensitive first, best effort last (still above cluster-autoscaler's
// expendable cutoff).
var openbPriority = map[string]int32{"LS": 100, "Guaranteed": 50, "Burstable": 0, "BE": -1}

// ReadOpenbNodes reads openb_node_list_*.csv (sn, cpu_milli, memory_mib,
// gpu, model) into snap (a working copy): a Node per row with a
// ResourceSlice of its GPUs, and the openb DeviceClass.
func ReadOpenbNodes(name string, r io.Reader, snap *snapshot.Snapshot) error {
	t, err := readTable(name, r)
	if err != nil {
		return err
	}
	if err := t.require("sn", "cpu_milli", "memory_mib", "gpu", "model"); err != nil {
		return err
	}
	addOpenbClass(snap)
	seen := map[string]bool{}
	for _, n := range snap.Nodes {
		seen[n.Name] = true
	}
	var errs []error
	// Nodes of one model and GPU count publish equal device lists; they
	// share one, as the loader and the generator share equal lists, so
	// that what drasim works out per list (which devices a claim's
	// selectors pick) is worked out once for them all.
	lists := map[openbDevices][]resourceapi.Device{}
	for i := range t.rows {
		sn := t.get(i, "sn")
		if sn == "" || validationName(sn) != "" {
			errs = append(errs, t.errorf(i, "sn", "%q is not a node name", sn))
			continue
		}
		if seen[sn] {
			errs = append(errs, t.errorf(i, "sn", "node %s is listed twice", sn))
			continue
		}
		seen[sn] = true
		cpu, err1 := nonNegative(t.get(i, "cpu_milli"))
		mem, err2 := nonNegative(t.get(i, "memory_mib"))
		gpus, err3 := nonNegative(t.get(i, "gpu"))
		switch {
		case err1 != nil:
			errs = append(errs, t.errorf(i, "cpu_milli", "%v", err1))
			continue
		case err2 != nil:
			errs = append(errs, t.errorf(i, "memory_mib", "%v", err2))
			continue
		case err3 != nil || gpus > resourceapi.ResourceSliceMaxDevices:
			errs = append(errs, t.errorf(i, "gpu", "want a whole number from 0 to %d", resourceapi.ResourceSliceMaxDevices))
			continue
		}
		model := t.get(i, "model")
		node, slice := openbNode(sn, cpu, mem, gpus, model)
		if slice != nil {
			k := openbDevices{gpus, model}
			if shared, ok := lists[k]; ok {
				slice.Spec.Devices = shared
			} else {
				lists[k] = slice.Spec.Devices
			}
		}
		snap.Nodes = append(snap.Nodes, node)
		if slice != nil {
			snap.ResourceSlices = append(snap.ResourceSlices, slice)
		}
	}
	return errors.Join(errs...)
}

// openbDevices names an openb node's device list.
type openbDevices struct {
	gpus  int64
	model string
}

func nonNegative(s string) (int64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f != math.Trunc(f) {
		return 0, fmt.Errorf("%q: want a whole number >= 0", s)
	}
	return int64(f), nil
}

func openbNode(name string, cpuMilli, memMiB, gpus int64, model string) (*v1.Node, *resourceapi.ResourceSlice) {
	alloc := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(cpuMilli, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(memMiB<<20, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(openbPodsPerNode, resource.DecimalSI),
	}
	instance := "cpu"
	if gpus > 0 && model != "" {
		instance = model
	}
	node := &v1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			v1.LabelHostname: name, v1.LabelInstanceTypeStable: instance,
		}},
		Status: v1.NodeStatus{Allocatable: alloc, Capacity: alloc.DeepCopy(), Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}},
	}
	if model != "" {
		node.Labels[OpenbModelLabel] = model
	}
	if gpus == 0 {
		return node, nil
	}
	slice := &resourceapi.ResourceSlice{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"},
		ObjectMeta: metav1.ObjectMeta{Name: name + "-gpu"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: OpenbDriver, NodeName: ptr.To(name),
			Pool: resourceapi.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1},
		},
	}
	for g := int64(0); g < gpus; g++ {
		slice.Spec.Devices = append(slice.Spec.Devices, resourceapi.Device{
			Name:                     fmt.Sprintf("gpu-%d", g),
			Attributes:               map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: ptr.To(model)}},
			Capacity:                 map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{openbCapacity: {Value: resource.MustParse("1000")}},
			AllowMultipleAllocations: ptr.To(true),
		})
	}
	return node, slice
}

// addOpenbClass adds the DeviceClass of openb GPUs, once.
func addOpenbClass(snap *snapshot.Snapshot) {
	for _, c := range snap.DeviceClasses {
		if c.Name == OpenbDeviceClass {
			return
		}
	}
	snap.DeviceClasses = append(snap.DeviceClasses, &resourceapi.DeviceClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"},
		ObjectMeta: metav1.ObjectMeta{Name: OpenbDeviceClass},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{
			CEL: &resourceapi.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", OpenbDriver)},
		}}},
	})
}

// ReadOpenbPods reads openb_pod_list_*.csv (name, cpu_milli, memory_mib,
// num_gpu, gpu_milli, gpu_spec, qos, pod_phase, creation_time,
// deletion_time, scheduled_time) into arrivals: a pod arrives at its
// creation_time (the trace's first creation time is the start), runs
// deletion_time − scheduled_time (or − creation_time when it was never
// scheduled), and asks for num_gpu GPUs of gpu_milli milli-GPUs each
// (1000 for whole GPUs), of a model in gpu_spec when it names some. A
// claim template per request shape is added to snap (a working copy).
// The lists without times (openb_pod_list_multigpu*.csv: name,
// cpu_milli, memory_mib, num_gpu, gpu_milli) are submitted as the
// trace's simulator submits them, in list order: a pod a second, each
// running for ever.
func ReadOpenbPods(name string, r io.Reader, snap *snapshot.Snapshot) (Arrivals, error) {
	t, err := readTable(name, r)
	if err != nil {
		return nil, err
	}
	if err := t.require("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"); err != nil {
		return nil, err
	}
	addOpenbClass(snap)
	templates := map[string]bool{}
	for _, tmpl := range snap.ResourceClaimTemplates {
		templates[tmpl.Namespace+"/"+tmpl.Name] = true
	}
	start := int64(math.MaxInt64)
	if !t.has("creation_time") {
		start = 0
	}
	for i := range t.rows {
		if c, err := nonNegative(t.get(i, "creation_time")); err == nil && c < start {
			start = c
		}
	}
	var out Arrivals
	var errs []error
	names := map[string]bool{}
	for i := range t.rows {
		a, err := openbRow(t, i, start, snap, templates)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if names[a.Pod.Name] {
			errs = append(errs, t.errorf(i, "name", "pod %s is listed twice", a.Pod.Name))
			continue
		}
		names[a.Pod.Name] = true
		out = append(out, a)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sortArrivals(out)
	return out, nil
}

func openbRow(t *table, i int, start int64, snap *snapshot.Snapshot, templates map[string]bool) (Arrival, error) {
	a := Arrival{Source: fmt.Sprintf("%s:%d", t.name, t.lines[i]), Endless: true}
	name := t.get(i, "name")
	if validationName(name) != "" {
		return a, t.errorf(i, "name", "%q is not a pod name", name)
	}
	num := map[string]int64{}
	columns := []string{"cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "creation_time"}
	if !t.has("creation_time") {
		// In list order, a second apart (ReadOpenbPods).
		columns, num["creation_time"] = columns[:4], int64(i)
	}
	for _, col := range columns {
		v, err := nonNegative(t.get(i, col))
		if err != nil {
			return a, t.errorf(i, col, "%v", err)
		}
		num[col] = v
	}
	for _, col := range []string{"deletion_time", "scheduled_time"} {
		if s := t.get(i, col); s != "" {
			v, err := nonNegative(s)
			if err != nil {
				return a, t.errorf(i, col, "%v", err)
			}
			num[col] = v
		}
	}
	a.At = time.Duration(num["creation_time"]-start) * time.Second
	if del, ok := num["deletion_time"]; ok {
		from := num["creation_time"]
		if s, ok := num["scheduled_time"]; ok && s > 0 {
			from = s
		}
		if del < from {
			return a, t.errorf(i, "deletion_time", "%d is before the pod was created or scheduled (%d)", del, from)
		}
		a.Duration, a.Endless = time.Duration(del-from)*time.Second, false
	}
	gpus, milli := num["num_gpu"], num["gpu_milli"]
	if gpus > resourceapi.AllocationResultsMaxSize {
		return a, t.errorf(i, "num_gpu", "%d: at most %d devices per claim", gpus, resourceapi.AllocationResultsMaxSize)
	}
	if gpus > 0 && (milli == 0 || milli > 1000) {
		return a, t.errorf(i, "gpu_milli", "%d: want 1 to 1000 milli-GPUs per GPU", milli)
	}
	qos := t.get(i, "qos")
	requests := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(num["cpu_milli"], resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(num["memory_mib"]<<20, resource.BinarySI),
	}
	workload := openbWorkload(gpus, milli)
	pod := tracePod(openbNamespace, workload, requests, openbPriority[qos])
	pod.Name = name
	pod.Labels["openb.alibaba.com/qos"] = strings.ToLower(qos)
	if gpus > 0 {
		var models []string
		for _, m := range strings.Split(t.get(i, "gpu_spec"), "|") {
			if m = strings.TrimSpace(m); m != "" {
				models = append(models, m)
			}
		}
		tmpl := openbTemplateName(gpus, milli, models)
		if !templates[openbNamespace+"/"+tmpl] {
			templates[openbNamespace+"/"+tmpl] = true
			snap.ResourceClaimTemplates = append(snap.ResourceClaimTemplates, openbTemplate(tmpl, gpus, milli, models))
		}
		addClaim(pod, "gpus", tmpl)
	}
	a.Pod = pod
	return a, nil
}

// openbWorkload groups trace pods by what they ask for: cpu, a GPU share,
// or a number of whole GPUs.
func openbWorkload(gpus, milli int64) string {
	switch {
	case gpus == 0:
		return "openb-cpu"
	case milli < 1000:
		return "openb-share"
	}
	return fmt.Sprintf("openb-%dgpu", gpus)
}

func openbTemplateName(gpus, milli int64, models []string) string {
	name := fmt.Sprintf("openb-%dx%d", gpus, milli)
	for _, m := range models {
		name += "-" + strings.ToLower(m)
	}
	if len(name) > 63 {
		name = name[:63]
	}
	return strings.TrimRight(name, "-")
}

// openbTemplate asks for gpus GPUs with milli milli-GPUs of capacity each,
// of one of the models when given.
func openbTemplate(name string, gpus, milli int64, models []string) *resourceapi.ResourceClaimTemplate {
	req := &resourceapi.ExactDeviceRequest{
		DeviceClassName: OpenbDeviceClass, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: gpus,
		Capacity: &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{
			openbCapacity: *resource.NewQuantity(milli, resource.DecimalSI),
		}},
	}
	if len(models) > 0 {
		quoted := make([]string, len(models))
		for k, m := range models {
			quoted[k] = strconv.Quote(m)
		}
		req.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
			Expression: fmt.Sprintf("device.attributes[%q].model in [%s]", OpenbDriver, strings.Join(quoted, ", ")),
		}}}
	}
	return &resourceapi.ResourceClaimTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaimTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: openbNamespace},
		Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: "gpus", Exactly: req}},
		}}},
	}
}
