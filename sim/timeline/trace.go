package timeline

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// Trace formats, told apart by their header.
const (
	// FormatTrace is drasim's CSV trace (docs/timeline.md): arrival,
	// workload, replicas, requests, a claim template or a device count,
	// duration, priority.
	FormatTrace = "drasim"
	// FormatOpenbPods and FormatOpenbNodes are the Alibaba GPU cluster
	// trace of Weng et al. (ATC'23): openb_pod_list_*.csv and
	// openb_node_list_*.csv.
	FormatOpenbPods  = "openb-pods"
	FormatOpenbNodes = "openb-nodes"
)

// LabelWorkload names a trace pod's workload.
const LabelWorkload = "drasim.io/workload"

// table is a CSV file read by column name.
type table struct {
	name   string
	header map[string]int
	rows   [][]string
	lines  []int
}

func readTable(name string, r io.Reader) (*table, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	t := &table{name: name, header: map[string]int{}}
	first := true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if first {
			for i, h := range rec {
				h = strings.ToLower(strings.TrimSpace(h))
				if h == "" && i == 0 {
					h = "#index" // pandas writes an unnamed index column
				}
				if _, dup := t.header[h]; dup {
					return nil, fmt.Errorf("%s:%d: column %q appears twice", name, line, h)
				}
				t.header[h] = i
			}
			first = false
			continue
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		t.rows = append(t.rows, rec)
		t.lines = append(t.lines, line)
	}
	if first {
		return nil, fmt.Errorf("%s: empty file: a trace starts with a header row", name)
	}
	return t, nil
}

func (t *table) has(col string) bool { _, ok := t.header[col]; return ok }

// get returns row i's value of a column ("" when the column or the value
// is missing, or pandas' "nan").
func (t *table) get(i int, col string) string {
	j, ok := t.header[col]
	if !ok || j >= len(t.rows[i]) {
		return ""
	}
	v := strings.TrimSpace(t.rows[i][j])
	if strings.EqualFold(v, "nan") {
		return ""
	}
	return v
}

func (t *table) errorf(i int, col, format string, args ...any) error {
	return fmt.Errorf("%s:%d: column %s: %s", t.name, t.lines[i], col, fmt.Sprintf(format, args...))
}

func (t *table) require(cols ...string) error {
	var missing []string
	for _, c := range cols {
		if !t.has(c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: the header lacks column(s) %s", t.name, strings.Join(missing, ", "))
	}
	return nil
}

// DetectFormat tells a trace's format from its header line.
func DetectFormat(header string) string {
	cols := map[string]bool{}
	for _, c := range strings.Split(strings.ToLower(header), ",") {
		cols[strings.TrimSpace(c)] = true
	}
	switch {
	case cols["cpu_milli"] && cols["gpu_milli"]:
		return FormatOpenbPods
	case cols["sn"] && cols["cpu_milli"]:
		return FormatOpenbNodes
	}
	return FormatTrace
}

// ReadTrace reads drasim's CSV trace into arrivals. Claim templates a row
// makes from a device count are added to snap (a working copy).
//
// Columns (header names, any order; only arrival and workload are
// required): arrival, workload, namespace (default), replicas (1), cpu,
// memory, claim_template (a ResourceClaimTemplate of the snapshot), or
// devices with device_class (a count of devices of a DeviceClass),
// duration (empty: runs for ever), priority (0).
func ReadTrace(name string, r io.Reader, snap *snapshot.Snapshot) (Arrivals, error) {
	t, err := readTable(name, r)
	if err != nil {
		return nil, err
	}
	if err := t.require("arrival", "workload"); err != nil {
		return nil, err
	}
	templates := map[string]bool{}
	for _, tmpl := range snap.ResourceClaimTemplates {
		templates[tmpl.Namespace+"/"+tmpl.Name] = true
	}
	classes := map[string]bool{}
	for _, c := range snap.DeviceClasses {
		classes[c.Name] = true
	}
	seq := map[string]int{}
	var out Arrivals
	var errs []error
	for i := range t.rows {
		a, n, err := traceRow(t, i, snap, templates, classes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		key := a.Pod.Namespace + "/" + a.Pod.Name
		for k := 0; k < n; k++ {
			cp := a
			cp.Pod = a.Pod.DeepCopy()
			cp.Pod.Name = fmt.Sprintf("%s-%d", a.Pod.Name, seq[key])
			cp.Pod.UID = types.UID(kubenames.UID("pod/" + cp.Pod.Namespace + "/" + cp.Pod.Name))
			seq[key]++
			out = append(out, cp)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sortArrivals(out)
	return out, nil
}

func traceRow(t *table, i int, snap *snapshot.Snapshot, templates, classes map[string]bool) (Arrival, int, error) {
	a := Arrival{Source: fmt.Sprintf("%s:%d", t.name, t.lines[i]), Endless: true}
	at, err := parseDuration(t.get(i, "arrival"))
	if err != nil {
		return a, 0, t.errorf(i, "arrival", "%v", err)
	}
	a.At = at
	if v := t.get(i, "duration"); v != "" {
		d, err := parseDuration(v)
		if err != nil {
			return a, 0, t.errorf(i, "duration", "%v", err)
		}
		a.Duration, a.Endless = d, false
	}
	workload := t.get(i, "workload")
	if errs := validationName(workload); errs != "" {
		return a, 0, t.errorf(i, "workload", "%q is not a valid name: %s", workload, errs)
	}
	ns := t.get(i, "namespace")
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	replicas := 1
	if v := t.get(i, "replicas"); v != "" {
		if replicas, err = strconv.Atoi(v); err != nil || replicas < 1 || replicas > 10000 {
			return a, 0, t.errorf(i, "replicas", "%q: want a whole number from 1 to 10000", v)
		}
	}
	var prio int32
	if v := t.get(i, "priority"); v != "" {
		p, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return a, 0, t.errorf(i, "priority", "%q is not a whole number", v)
		}
		prio = int32(p)
	}
	requests := v1.ResourceList{}
	for _, col := range []string{"cpu", "memory"} {
		if v := t.get(i, col); v != "" {
			q, err := resource.ParseQuantity(v)
			if err != nil || q.Sign() < 0 {
				return a, 0, t.errorf(i, col, "%q is not a quantity (4, 500m, 16Gi)", v)
			}
			requests[v1.ResourceName(col)] = q
		}
	}
	pod := tracePod(ns, workload, requests, prio)
	tmpl := t.get(i, "claim_template")
	devices := t.get(i, "devices")
	switch {
	case tmpl != "" && devices != "":
		return a, 0, t.errorf(i, "claim_template", "give a claim template or a device count, not both")
	case tmpl != "":
		if !templates[ns+"/"+tmpl] {
			return a, 0, t.errorf(i, "claim_template", "ResourceClaimTemplate %s/%s is not in the snapshot", ns, tmpl)
		}
		addClaim(pod, "devices", tmpl)
	case devices != "":
		n, err := strconv.Atoi(devices)
		if err != nil || n < 0 || n > resourceapi.AllocationResultsMaxSize {
			return a, 0, t.errorf(i, "devices", "%q: want a whole number from 0 to %d", devices, resourceapi.AllocationResultsMaxSize)
		}
		class := t.get(i, "device_class")
		if n > 0 {
			if class == "" {
				return a, 0, t.errorf(i, "device_class", "required with devices")
			}
			if !classes[class] {
				return a, 0, t.errorf(i, "device_class", "DeviceClass %s is not in the snapshot", class)
			}
			name := fmt.Sprintf("trace-%s-%d", kubenames.Suffix(class, 8), n)
			if !templates[ns+"/"+name] {
				templates[ns+"/"+name] = true
				snap.ResourceClaimTemplates = append(snap.ResourceClaimTemplates, countTemplate(ns, name, class, n))
			}
			addClaim(pod, "devices", name)
		}
	}
	a.Pod = pod
	return a, replicas, nil
}

// validationName checks a workload name for use in pod names (a DNS
// label, short enough for a numeric suffix).
func validationName(s string) string {
	if s == "" {
		return "empty"
	}
	if len(s) > 50 {
		return "longer than 50 characters"
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case r == '-' && i > 0 && i < len(s)-1:
		default:
			return "use lowercase letters, digits and inner dashes"
		}
	}
	return ""
}

// tracePod is a pending pod of a trace workload: one container with the
// requests, owned by a Job named after the workload (so that
// cluster-autoscaler sees a replicated pod it may move).
func tracePod(ns, workload string, requests v1.ResourceList, prio int32) *v1.Pod {
	controller := true
	pod := &v1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: workload, Namespace: ns,
			Labels:          map[string]string{"app": workload, LabelWorkload: workload},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: workload, Controller: &controller}},
		},
		Spec: v1.PodSpec{
			Containers:    []v1.Container{{Name: "main", Image: "trace", Resources: v1.ResourceRequirements{Requests: requests}}},
			RestartPolicy: v1.RestartPolicyNever,
			Priority:      ptr.To(prio),
		},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
	load.DefaultPod(pod)
	return pod
}

func addClaim(pod *v1.Pod, name, template string) {
	pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, v1.PodResourceClaim{Name: name, ResourceClaimTemplateName: ptr.To(template)})
	pod.Spec.Containers[0].Resources.Claims = append(pod.Spec.Containers[0].Resources.Claims, v1.ResourceClaim{Name: name})
}

// countTemplate asks for n devices of a class.
func countTemplate(ns, name, class string, n int) *resourceapi.ResourceClaimTemplate {
	spec := resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
		Name:    "devices",
		Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: int64(n)},
	}}}}
	return &resourceapi.ResourceClaimTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaimTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: spec},
	}
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// seconds renders a duration as seconds for messages.
func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }
