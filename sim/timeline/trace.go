package timeline

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/internal/suggest"
	"github.com/drasim/drasim/sim/kube"
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
	// columns are the header's names in order, and headerLine its line.
	columns    []string
	headerLine int
	rows       [][]string
	lines      []int
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
				t.columns = append(t.columns, h)
			}
			t.headerLine = line
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

// traceColumns are the columns of drasim's trace, in the documented order.
var traceColumns = []string{"arrival", "workload", "namespace", "replicas", "cpu", "memory", "claim_template", "devices", "device_class", "duration", "priority", "provisioning_request"}

// unknownColumns reports each column of the header that drasim's trace
// does not have: a misspelt column would be ignored, and its values with
// it (a misspelt duration makes every pod run for ever). pandas' unnamed
// index column is not one.
func (t *table) unknownColumns() []error {
	var errs []error
	for _, c := range t.columns {
		if c == "#index" || slices.Contains(traceColumns, c) {
			continue
		}
		if near := suggest.Closest(c, traceColumns); near != "" {
			errs = append(errs, fmt.Errorf("%s:%d: unknown column %q (did you mean %s?)", t.name, t.headerLine, c, near))
		} else {
			errs = append(errs, fmt.Errorf("%s:%d: unknown column %q; the columns are %s", t.name, t.headerLine, c, strings.Join(traceColumns, ", ")))
		}
	}
	return errs
}

// ReadTrace reads drasim's CSV trace into arrivals. Claim templates a row
// makes from a device count are added to snap (a working copy).
//
// Columns (header names, any order; only arrival and workload are
// required): arrival, workload, namespace (default), replicas (1), cpu,
// memory, claim_template (a ResourceClaimTemplate of the snapshot), or
// devices with device_class (a count of devices of a DeviceClass),
// duration (empty: runs for ever), priority (0), provisioning_request (a
// ProvisioningRequest of the snapshot the pods consume).
func ReadTrace(name string, r io.Reader, snap *snapshot.Snapshot) (Arrivals, error) {
	t, err := readTable(name, r)
	if err != nil {
		return nil, err
	}
	// Every problem of the file is reported at once: the header's first,
	// then each row's, in order.
	errs := t.unknownColumns()
	if err := t.require("arrival", "workload"); err != nil {
		return nil, errors.Join(append([]error{err}, errs...)...)
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
	for i := range t.rows {
		a, n, rowErrs := traceRow(t, i, snap, templates, classes)
		if len(rowErrs) > 0 {
			errs = append(errs, rowErrs...)
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

// traceRow reads row i: an arrival and its replica count, or every
// problem of the row.
func traceRow(t *table, i int, snap *snapshot.Snapshot, templates, classes map[string]bool) (Arrival, int, []error) {
	a := Arrival{Source: fmt.Sprintf("%s:%d", t.name, t.lines[i]), Endless: true}
	var errs []error
	fail := func(col, format string, args ...any) { errs = append(errs, t.errorf(i, col, format, args...)) }
	if at, err := parseDuration(t.get(i, "arrival")); err != nil {
		fail("arrival", "%v", err)
	} else {
		a.At = at
	}
	if v := t.get(i, "duration"); v != "" {
		if d, err := parseDuration(v); err != nil {
			fail("duration", "%v", err)
		} else {
			a.Duration, a.Endless = d, false
		}
	}
	workload := t.get(i, "workload")
	if problem := validationName(workload); problem != "" {
		fail("workload", "%q is not a valid name: %s", workload, problem)
	}
	ns := t.get(i, "namespace")
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	replicas := 1
	if v := t.get(i, "replicas"); v != "" {
		var err error
		if replicas, err = strconv.Atoi(v); err != nil || replicas < 1 || replicas > 10000 {
			fail("replicas", "%q: want a whole number from 1 to 10000", v)
		}
	}
	prio, requests := traceResources(t, i, fail)
	consumes := t.get(i, "provisioning_request")
	if consumes != "" && !hasRequest(snap, ns, consumes) {
		fail("provisioning_request", "ProvisioningRequest %s/%s is not in the snapshot", ns, consumes)
	}
	tmpl := t.get(i, "claim_template")
	devices := t.get(i, "devices")
	claim := ""
	switch {
	case tmpl != "" && devices != "":
		fail("claim_template", "give a claim template or a device count, not both")
	case tmpl != "":
		if !templates[ns+"/"+tmpl] {
			fail("claim_template", "ResourceClaimTemplate %s/%s is not in the snapshot", ns, tmpl)
		}
		claim = tmpl
	case devices != "":
		n, err := strconv.Atoi(devices)
		if err != nil || n < 0 || n > resourceapi.AllocationResultsMaxSize {
			fail("devices", "%q: want a whole number from 0 to %d", devices, resourceapi.AllocationResultsMaxSize)
			break
		}
		class := t.get(i, "device_class")
		switch {
		case n == 0:
		case class == "":
			fail("device_class", "required with devices")
		case !classes[class]:
			fail("device_class", "DeviceClass %s is not in the snapshot", class)
		case len(errs) == 0:
			// The template is added to the snapshot only for a row
			// that is read whole.
			claim = fmt.Sprintf("trace-%s-%d", kubenames.Suffix(class, 8), n)
			if !templates[ns+"/"+claim] {
				templates[ns+"/"+claim] = true
				snap.ResourceClaimTemplates = append(snap.ResourceClaimTemplates, countTemplate(ns, claim, class, n))
			}
		}
	}
	if len(errs) > 0 {
		return a, 0, errs
	}
	pod := tracePod(ns, workload, requests, prio)
	if consumes != "" {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[snapshot.ProvisioningRequestPodAnnotation] = consumes
	}
	if claim != "" {
		addClaim(pod, "devices", claim)
	}
	a.Pod = pod
	return a, replicas, nil
}

// traceResources reads row i's priority and its CPU and memory requests,
// reporting each bad value through fail.
func traceResources(t *table, i int, fail func(col, format string, args ...any)) (int32, v1.ResourceList) {
	var prio int32
	if v := t.get(i, "priority"); v != "" {
		if p, err := strconv.ParseInt(v, 10, 32); err != nil {
			fail("priority", "%q is not a whole number", v)
		} else {
			prio = int32(p)
		}
	}
	requests := v1.ResourceList{}
	for _, col := range []string{"cpu", "memory"} {
		if v := t.get(i, col); v != "" {
			q, err := resource.ParseQuantity(v)
			if err != nil || q.Sign() < 0 {
				fail(col, "%q is not a quantity (4, 500m, 16Gi)", v)
				continue
			}
			requests[v1.ResourceName(col)] = q
		}
	}
	return prio, requests
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
	kube.DefaultPod(pod)
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

func hasRequest(snap *snapshot.Snapshot, namespace, name string) bool {
	for _, pr := range snap.ProvisioningRequests {
		if pr.Namespace == namespace && pr.Name == name {
			return true
		}
	}
	return false
}
