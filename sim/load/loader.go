package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/snapshot"
	yamlv3 "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
)

type loader struct {
	opts     Options
	snap     *snapshot.Snapshot
	warnings []Warning
	errs     Errors
	// skippedFirst remembers where each skipped kind was first seen, so the
	// one warning per kind can point at an example.
	skippedFirst map[string]snapshot.Source
	// filling collects the objects whose JSON awaits decoding; decoding
	// the one dispatched before it, on other goroutines (decode.go).
	filling, decoding *decodeBatch
	// spare is a drained batch, kept for its buffers.
	spare *decodeBatch
	// workers decode a batch (1: on the loader's goroutine); batchBytes
	// ends a batch.
	workers, batchBytes int
	// chunkBytes is how much of a file the loader reads at least at a time
	// (chunks.go); pieceBytes is the least text of a piece read in
	// parallel (pieces.go).
	chunkBytes, pieceBytes int
	// added lists the objects added to Sources since the file being read
	// began, to take them back (see rollback).
	added []snapshot.Ref
	// interner shares equal device maps between slices; interned counts
	// the snapshot's slices it has seen.
	interner *deviceInterner
	interned int
	// slices decodes ResourceSlices from the fast reader's tree.
	slices *sliceDecoder
}

func newLoader(opts Options) *loader {
	return &loader{opts: opts, snap: snapshot.New(), skippedFirst: map[string]snapshot.Source{}, interner: newDeviceInterner(), slices: newSliceDecoder(),
		workers: runtime.GOMAXPROCS(0), batchBytes: defaultBatchBytes, chunkBytes: defaultChunkBytes, pieceBytes: defaultPieceBytes}
}

// internNew interns the device maps of the slices added since the last
// call, one object at a time, so that the load never holds a whole fleet's
// duplicates at once. A rollback may have taken slices back.
func (l *loader) internNew() {
	l.interned = min(l.interned, len(l.snap.ResourceSlices))
	for _, sl := range l.snap.ResourceSlices[l.interned:] {
		l.interner.slice(sl)
	}
	l.interned = len(l.snap.ResourceSlices)
}

// errorf and warnf record a problem after those of the objects still
// waiting to be decoded, which come first in the input.
func (l *loader) errorf(src snapshot.Source, object, field, format string, args ...any) {
	l.drain()
	// object may be (part of) the file's text: do not keep all of it alive.
	object = strings.Clone(object)
	l.errs = append(l.errs, &Error{Source: src, Object: object, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (l *loader) warnf(src snapshot.Source, format string, args ...any) {
	l.drain()
	l.warnings = append(l.warnings, Warning{Source: src, Message: fmt.Sprintf(format, args...)})
}

// addFile loads the documents of one file, one at a time, so that only one
// document's tree is alive at once. The fast reader reads them if the whole
// file is the plain block YAML it knows; otherwise yaml.v3 reads the file,
// as it always has.
func (l *loader) addFile(name, text string) {
	if !l.addFileFast(name, &textChunks{text: text}) {
		l.addFileYAML(name, strings.NewReader(text))
	}
}

// addFileYAML loads a file with yaml.v3.
func (l *loader) addFileYAML(name string, text io.Reader) {
	first := len(l.errs)
	dec := yamlv3.NewDecoder(text)
	for i := 0; ; i++ {
		var node yamlv3.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			// A file that does not parse reports that first, ahead of the
			// problems found in the documents before the broken one.
			l.drain()
			l.errs = slices.Insert(l.errs, first, &Error{Source: snapshot.Source{File: name, Doc: i, Item: -1},
				Msg: fmt.Sprintf("not valid YAML or JSON: %v", err)})
			return
		}
		l.addDocument(snapshot.Source{File: name, Doc: i, Item: -1, Line: node.Line}, &node)
	}
}

// fileMark is the loader's state before a file, to take back what the file
// added.
type fileMark struct {
	errs     Errors
	warnings []Warning
	// slices are the snapshot's object lists, by field.
	slices       []reflect.Value
	skipped      map[string]int
	skippedFirst map[string]snapshot.Source
}

func (l *loader) mark() fileMark {
	l.drain()
	l.added = l.added[:0]
	v := reflect.ValueOf(l.snap).Elem()
	m := fileMark{errs: l.errs, warnings: l.warnings, slices: make([]reflect.Value, v.NumField()),
		skipped: maps.Clone(l.snap.Skipped), skippedFirst: maps.Clone(l.skippedFirst)}
	for i := range m.slices {
		if f := v.Field(i); f.Kind() == reflect.Slice {
			m.slices[i] = reflect.ValueOf(f.Interface())
		}
	}
	return m
}

// rollback restores the state of m. The lists get back their own slices
// (nil stays nil), with what was appended since cleared for the collector.
func (l *loader) rollback(m fileMark) {
	l.drain()
	clear(l.errs[len(m.errs):])
	clear(m.errs[len(m.errs):cap(m.errs)])
	l.errs = m.errs
	clear(l.warnings[len(m.warnings):])
	clear(m.warnings[len(m.warnings):cap(m.warnings)])
	l.warnings = m.warnings
	for _, ref := range l.added {
		delete(l.snap.Sources, ref)
	}
	l.added = l.added[:0]
	v := reflect.ValueOf(l.snap).Elem()
	for i, saved := range m.slices {
		if !saved.IsValid() {
			continue
		}
		f := v.Field(i)
		f.Slice(saved.Len(), f.Len()).Clear()
		saved.Slice(saved.Len(), saved.Cap()).Clear()
		f.Set(saved)
	}
	l.snap.Skipped = m.skipped
	l.skippedFirst = m.skippedFirst
}

// addTreeDocument loads a document the fast reader read: an object or a
// List of objects, as addDocument does for one yaml.v3 read.
func (l *loader) addTreeDocument(src snapshot.Source, t *docTree, root int32) {
	src.Line = int(t.node(root).line)
	kind := t.str(root, "kind")
	items := t.child(root, "items")
	if items >= 0 && kind == "" {
		l.warnf(src, "document has items but no kind; read as a List")
		kind = "List"
	}
	if items >= 0 && strings.HasSuffix(kind, "List") {
		switch n := t.node(items); {
		case n.kind == treeScalar && n.scalar == scalarNull:
			return // items: null is an empty list
		case n.kind != treeSeq:
			l.errorf(src, kind, "items", "must be a list")
			return
		}
		i := 0
		for c := t.node(items).first; c >= 0; c, i = t.node(c).next, i+1 {
			isrc := src
			isrc.Item = i
			isrc.Line = int(t.node(c).line)
			if t.node(c).kind != treeMap {
				l.errorf(isrc, "", fmt.Sprintf("items[%d]", i), "list item is not an object")
				continue
			}
			l.addObject(isrc, object{tree: t, node: c})
		}
		return
	}
	l.addObject(src, object{tree: t, node: root})
}

// addDocument loads one document: an object, a List of objects, or nothing
// (an empty document).
func (l *loader) addDocument(src snapshot.Source, doc *yamlv3.Node) {
	root := doc
	if root.Kind == yamlv3.DocumentNode {
		if len(root.Content) == 0 {
			return
		}
		root = root.Content[0]
	}
	if root.Kind == yamlv3.ScalarNode && (root.Tag == "!!null" || root.Value == "") {
		return // an empty document, e.g. after a trailing ---
	}
	if root.Kind != yamlv3.MappingNode {
		l.errorf(src, "", "", "document is not an object (found a YAML %s)", nodeKindName(root.Kind))
		return
	}
	src.Line = root.Line
	var generic map[string]any
	if err := root.Decode(&generic); err != nil {
		l.errorf(src, "", "", "cannot read document: %v", err)
		return
	}
	kind, _ := generic["kind"].(string)
	items, hasItems := generic["items"]
	if hasItems && kind == "" {
		// Dumps cut out of documentation often lose the `kind: List`
		// line; an object with items and no kind can only be a list.
		l.warnf(src, "document has items but no kind; read as a List")
		kind = "List"
	}
	if hasItems && strings.HasSuffix(kind, "List") {
		list, ok := items.([]any)
		if !ok && items != nil {
			l.errorf(src, kind, "items", "must be a list")
			return
		}
		itemNodes := mappingValue(root, "items")
		for i, it := range list {
			isrc := src
			isrc.Item = i
			if itemNodes != nil && i < len(itemNodes.Content) {
				isrc.Line = itemNodes.Content[i].Line
			}
			obj, ok := it.(map[string]any)
			if !ok {
				l.errorf(isrc, "", fmt.Sprintf("items[%d]", i), "list item is not an object")
				continue
			}
			l.addObject(isrc, object{generic: obj})
		}
		return
	}
	l.addObject(src, object{generic: generic})
}

func nodeKindName(k yamlv3.Kind) string {
	switch k {
	case yamlv3.SequenceNode:
		return "list"
	case yamlv3.ScalarNode:
		return "scalar"
	case yamlv3.AliasNode:
		return "alias"
	}
	return "node"
}

func mappingValue(m *yamlv3.Node, key string) *yamlv3.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// kindKey is group/kind, the key of the decoder table.
type kindKey struct{ group, kind string }

// resourceKinds are the resource.k8s.io kinds drasim models; their versions
// need conversion rather than plain decoding.
var resourceKinds = map[string]bool{
	"DeviceClass": true, "ResourceSlice": true, "ResourceClaim": true,
	"ResourceClaimTemplate": true, "DeviceTaintRule": true,
}

// versionedKinds are the kinds whose served API versions differ between the
// Kubernetes releases drasim models (sim/kubeversion): the loader notes the
// version each was written in (snapshot.Written).
var versionedKinds = map[string]bool{
	"resource.k8s.io/DeviceTaintRule": true, "scheduling.k8s.io/Workload": true, "scheduling.k8s.io/PodGroup": true,
}

func splitAPIVersion(av string) (group, version string) {
	if i := strings.LastIndex(av, "/"); i >= 0 {
		return av[:i], av[i+1:]
	}
	return "", av
}

func (l *loader) addObject(src snapshot.Source, obj object) {
	apiVersion := obj.str("apiVersion")
	kind := obj.str("kind")
	name := obj.name()
	display := kind
	if name != "" {
		display = fmt.Sprintf("%s %q", kind, name)
	}
	if apiVersion == "" || kind == "" {
		missing := "apiVersion"
		if apiVersion != "" {
			missing = "kind"
		}
		hint := "is this a Kubernetes object?"
		if k, found := obj.caseMismatch(missing); found {
			hint = fmt.Sprintf("found %q: field names are case-sensitive", k)
		}
		l.errorf(src, display, missing, "required field is missing; %s", hint)
		return
	}
	group, version := splitAPIVersion(apiVersion)
	if versionedKinds[group+"/"+kind] {
		l.snap.Written[src] = apiVersion
	}
	if group == "resource.k8s.io" && resourceKinds[kind] {
		var ok bool
		if obj, ok = l.toResourceV1(src, display, kind, version, obj); !ok {
			return
		}
	}
	kd, ok := decoders[kindKey{group, kind}]
	if ok && group == "drasim.io" && version != "v1alpha1" {
		l.errorf(src, display, "apiVersion", "%s is not supported: use %s", apiVersion, snapshot.NodeGroupAPIVersion)
		return
	}
	served := version == "v1"
	if group == "scheduling.k8s.io" && (kind == "Workload" || kind == "PodGroup") {
		served = workloadVersion(version)
	}
	if ok && group == snapshot.AutoscalingGroup {
		if want := autoscalingVersion(kind); version != want {
			l.errorf(src, display, "apiVersion", "%s is not supported for %s: use %s/%s, the version cluster-autoscaler serves", apiVersion, kind, group, want)
			return
		}
		served = true
	}
	if !ok || (group != "resource.k8s.io" && group != "drasim.io" && !served) {
		key := apiVersion + "/" + kind
		if _, seen := l.skippedFirst[key]; !seen {
			l.skippedFirst[key] = src
		}
		l.snap.Skipped[key]++
		return
	}
	l.enqueue(src, display, kd, kind, group, obj)
}

// toResourceV1 brings a resource.k8s.io object of any version drasim
// reads to v1; ok is false when it cannot (the error is recorded).
func (l *loader) toResourceV1(src snapshot.Source, display, kind, version string, obj object) (object, bool) {
	// The conversions below work on the generic map.
	if obj.tree != nil && (version == "v1beta1" || version == "v1beta2" ||
		version == "v1" && kind == "ResourceSlice" && obj.tree.hasBasicWrapper(obj.node)) {
		var err error
		if obj, err = obj.toGeneric(); err != nil {
			l.errorf(src, display, "", "cannot encode: %v", err)
			return obj, false
		}
	}
	switch version {
	case "v1":
		if kind == "ResourceSlice" && obj.generic != nil {
			l.rejectBasicWrapper(src, display, obj.generic)
		}
	case "v1beta2":
		// v1beta2 has the shape of v1.
	case "v1beta1":
		if err := convertV1beta1(kind, obj.generic); err != nil {
			l.errorf(src, display, "", "cannot convert from resource.k8s.io/v1beta1: %v", err)
			return obj, false
		}
	default:
		l.errorf(src, display, "apiVersion", "resource.k8s.io/%s is not supported: drasim models resource.k8s.io/v1 "+
			"(and converts v1beta1 and v1beta2); %s objects of the classic DRA API were removed in Kubernetes 1.32, "+
			"rewrite this object for resource.k8s.io/v1", version, version)
		return obj, false
	}
	if obj.generic != nil {
		obj.generic["apiVersion"] = "resource.k8s.io/v1"
	}
	return obj, true
}

// enqueue adds the object to the current batch for decoding: a v1
// ResourceSlice the fast reader can decode at once, anything else as
// JSON.
func (l *loader) enqueue(src snapshot.Source, display string, kd *kindDecoder, kind, group string, obj object) {
	b := l.batch()
	if obj.tree != nil && group == "resource.k8s.io" && kind == "ResourceSlice" {
		// A v1 slice the fast reader read (the others are generic maps by
		// now): decoded here, unless the JSON way must.
		if sl, ok := l.slices.slice(obj.tree, obj.node); ok {
			b.items = append(b.items, pendingObject{src: src, display: display, kind: kd, ready: true, out: decoded{obj: sl}})
			l.batchFilled()
			return
		}
	}
	start := len(b.buf)
	data, err := obj.appendJSON(b.buf)
	if err != nil {
		b.buf = data[:start]
		l.errorf(src, display, "", "cannot encode: %v", err)
		return
	}
	b.buf = data
	b.items = append(b.items, pendingObject{src: src, display: display, kind: kd, start: start, end: len(data)})
	l.batchFilled()
}

// workloadVersion reports the scheduling.k8s.io versions that serve
// Workloads and PodGroups in v1.37: v1beta1, and v1alpha3, whose objects
// have the same fields and are read as v1beta1.
func workloadVersion(version string) bool {
	return version == "v1beta1" || version == "v1alpha3"
}

func objectName(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if ns, _ := md["namespace"].(string); ns != "" && name != "" {
		return ns + "/" + name
	}
	return name
}

// rejectBasicWrapper catches a common mistake in published manifests: a
// resource.k8s.io/v1 slice whose devices still use the v1beta1 `basic:`
// wrapper. The API server would reject it (kubectl validates strictly), and a
// silently empty device would make every simulation wrong.
func (l *loader) rejectBasicWrapper(src snapshot.Source, display string, obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	devices, _ := spec["devices"].([]any)
	for i, d := range devices {
		dm, _ := d.(map[string]any)
		if _, has := dm["basic"]; has {
			l.errorf(src, display, fmt.Sprintf("spec.devices[%d].basic", i),
				"the `basic` wrapper belongs to resource.k8s.io/v1beta1; in v1 the device fields (attributes, capacity, ...) stand directly in the device: remove the wrapper or set apiVersion: resource.k8s.io/v1beta1")
			delete(dm, "basic")
		}
	}
}

// unmarshal decodes data strictly into out. It only reads data, so any
// goroutine may run it.
func unmarshal(data []byte, out any) (strictErrs []error, err error) {
	return sigsjson.UnmarshalStrict(data, out, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
}

// reportDecode records what unmarshal found: unknown or duplicate fields
// are warnings unless Options.Strict is set. It reports false on a fatal
// error.
func (l *loader) reportDecode(src snapshot.Source, display string, d decoded) bool {
	if err := d.err; err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			l.errorf(src, display, te.Field, "expected %s, found a JSON %s", typeName(te.Type), te.Value)
		} else {
			l.errorf(src, display, "", "cannot decode: %v", err)
		}
		return false
	}
	for _, se := range d.strictErrs {
		if l.opts.Strict {
			l.errorf(src, display, "", "%v", se)
		} else {
			l.warnf(src, "%s: %v (ignored; --strict makes this an error)", display, se)
		}
	}
	return true
}

// typeName turns a Go type into words a manifest author knows.
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map:
		return "a map"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return typeName(t.Elem())
	}
	return "an object (" + t.Name() + ")"
}

// kindDecoder reads one kind in two steps: decode, which only reads the
// object's JSON and so runs on any goroutine, and add, which records the
// outcome in the loader, in input order.
type kindDecoder struct {
	decode func(data []byte) decoded
	add    func(l *loader, src snapshot.Source, display string, d decoded)
}

// decoded is what decode gives add: the object (a *T) with its
// namespace settled and defaults applied, or the decoding error.
type decoded struct {
	obj        any
	strictErrs []error
	err        error
}

// typed builds the decoder for one kind: decode, default, then append.
// Defaults change only the object, which add drops if it is not named or
// named twice, so they are applied while decoding.
func typed[T any](kind string, namespaced bool, meta func(*T) *metav1.ObjectMeta, add func(*snapshot.Snapshot, *T), defaults func(*T)) *kindDecoder {
	return &kindDecoder{
		decode: func(data []byte) decoded {
			obj := new(T)
			strictErrs, err := unmarshal(data, obj)
			if err != nil {
				return decoded{err: err}
			}
			m := meta(obj)
			if namespaced && m.Namespace == "" {
				m.Namespace = metav1.NamespaceDefault
			}
			if !namespaced {
				m.Namespace = ""
			}
			if m.Name != "" && defaults != nil {
				defaults(obj)
			}
			return decoded{obj: obj, strictErrs: strictErrs}
		},
		add: func(l *loader, src snapshot.Source, display string, d decoded) {
			if !l.reportDecode(src, display, d) {
				return
			}
			obj := d.obj.(*T)
			m := meta(obj)
			if m.Name == "" {
				if m.GenerateName != "" {
					l.errorf(src, display, "metadata.name", "required; generateName %q is only resolved by the API server, give the object a name", m.GenerateName)
				} else {
					l.errorf(src, display, "metadata.name", "required field is missing")
				}
				return
			}
			ref := snapshot.Ref{Kind: kind, Namespace: m.Namespace, Name: m.Name}
			if prev, dup := l.snap.Sources[ref]; dup {
				l.errorf(src, ref.String(), "metadata.name", "duplicate object: already defined at %s", prev)
				return
			}
			l.snap.Sources[ref] = src
			l.added = append(l.added, ref)
			add(l.snap, obj)
		},
	}
}

var decoders = map[kindKey]*kindDecoder{
	{"", "Namespace"}: typed("Namespace", false, func(o *v1.Namespace) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *v1.Namespace) { s.Namespaces = append(s.Namespaces, o) }, nil),
	{"", "Node"}: typed("Node", false, func(o *v1.Node) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *v1.Node) { s.Nodes = append(s.Nodes, o) }, nil),
	{"", "Pod"}: typed("Pod", true, func(o *v1.Pod) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *v1.Pod) { s.Pods = append(s.Pods, o) }, kube.DefaultPod),
	{"scheduling.k8s.io", "PriorityClass"}: typed("PriorityClass", false, func(o *schedulingv1.PriorityClass) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *schedulingv1.PriorityClass) {
			s.PriorityClasses = append(s.PriorityClasses, o)
		}, nil),
	{"apps", "Deployment"}: typed("Deployment", true, func(o *appsv1.Deployment) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *appsv1.Deployment) { s.Deployments = append(s.Deployments, o) }, nil),
	{"apps", "ReplicaSet"}: typed("ReplicaSet", true, func(o *appsv1.ReplicaSet) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *appsv1.ReplicaSet) { s.ReplicaSets = append(s.ReplicaSets, o) }, nil),
	{"apps", "StatefulSet"}: typed("StatefulSet", true, func(o *appsv1.StatefulSet) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *appsv1.StatefulSet) { s.StatefulSets = append(s.StatefulSets, o) }, nil),
	{"apps", "DaemonSet"}: typed("DaemonSet", true, func(o *appsv1.DaemonSet) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *appsv1.DaemonSet) { s.DaemonSets = append(s.DaemonSets, o) }, nil),
	{"batch", "Job"}: typed("Job", true, func(o *batchv1.Job) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *batchv1.Job) { s.Jobs = append(s.Jobs, o) }, nil),
	{"resource.k8s.io", "DeviceClass"}: typed("DeviceClass", false, func(o *resourceapi.DeviceClass) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *resourceapi.DeviceClass) { s.DeviceClasses = append(s.DeviceClasses, o) }, nil),
	{"resource.k8s.io", "ResourceSlice"}: typed("ResourceSlice", false, func(o *resourceapi.ResourceSlice) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *resourceapi.ResourceSlice) {
			s.ResourceSlices = append(s.ResourceSlices, o)
		}, kube.DefaultResourceSlice),
	{"resource.k8s.io", "ResourceClaim"}: typed("ResourceClaim", true, func(o *resourceapi.ResourceClaim) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *resourceapi.ResourceClaim) {
			s.ResourceClaims = append(s.ResourceClaims, o)
		},
		func(o *resourceapi.ResourceClaim) { kube.DefaultClaimSpec(&o.Spec) }),
	{"resource.k8s.io", "ResourceClaimTemplate"}: typed("ResourceClaimTemplate", true, func(o *resourceapi.ResourceClaimTemplate) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *resourceapi.ResourceClaimTemplate) {
			s.ResourceClaimTemplates = append(s.ResourceClaimTemplates, o)
		},
		func(o *resourceapi.ResourceClaimTemplate) { kube.DefaultClaimSpec(&o.Spec.Spec) }),
	{"drasim.io", "NodeGroup"}: typed("NodeGroup", false, func(o *snapshot.NodeGroup) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *snapshot.NodeGroup) { s.NodeGroups = append(s.NodeGroups, o) }, nil),
	{"policy", "PodDisruptionBudget"}: typed("PodDisruptionBudget", true, func(o *policyv1.PodDisruptionBudget) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *policyv1.PodDisruptionBudget) {
			s.PodDisruptionBudgets = append(s.PodDisruptionBudgets, o)
		}, nil),
	{"scheduling.k8s.io", "Workload"}: typed("Workload", true, func(o *schedulingv1beta1.Workload) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *schedulingv1beta1.Workload) { s.Workloads = append(s.Workloads, o) }, nil),
	{"scheduling.k8s.io", "PodGroup"}: typed("PodGroup", true, func(o *schedulingv1beta1.PodGroup) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *schedulingv1beta1.PodGroup) { s.PodGroups = append(s.PodGroups, o) }, nil),
	{"", "PodTemplate"}: typed("PodTemplate", true, func(o *v1.PodTemplate) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *v1.PodTemplate) { s.PodTemplates = append(s.PodTemplates, o) }, nil),
	{snapshot.AutoscalingGroup, "ProvisioningRequest"}: typed("ProvisioningRequest", true, func(o *snapshot.ProvisioningRequest) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *snapshot.ProvisioningRequest) {
			s.ProvisioningRequests = append(s.ProvisioningRequests, o)
		}, nil),
	{snapshot.AutoscalingGroup, "CapacityBuffer"}: typed("CapacityBuffer", true, func(o *snapshot.CapacityBuffer) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *snapshot.CapacityBuffer) {
			s.CapacityBuffers = append(s.CapacityBuffers, o)
		}, DefaultCapacityBuffer),
	{"resource.k8s.io", "DeviceTaintRule"}: typed("DeviceTaintRule", false, func(o *resourceapi.DeviceTaintRule) *metav1.ObjectMeta { return &o.ObjectMeta },
		func(s *snapshot.Snapshot, o *resourceapi.DeviceTaintRule) {
			s.DeviceTaintRules = append(s.DeviceTaintRules, o)
		}, nil),
}

func (l *loader) finish(files []string) (*Result, error) {
	l.drain()
	// One warning per skipped kind, in a stable order.
	keys := make([]string, 0, len(l.snap.Skipped))
	for k := range l.snap.Skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n := l.snap.Skipped[k]
		l.warnf(l.skippedFirst[k], "skipped %d object(s) of kind %s: drasim does not model it", n, k)
	}
	if len(l.errs) > 0 {
		return &Result{Snapshot: l.snap, Warnings: l.warnings, Files: files}, l.errs
	}
	if !l.opts.KeepControllers {
		warnings, errs := kube.ExpandWorkloads(l.snap)
		l.warnings = append(l.warnings, warnings...)
		if len(errs) > 0 {
			return &Result{Snapshot: l.snap, Warnings: l.warnings, Files: files}, errs
		}
	}
	kube.ResolvePriorities(l.snap)
	return &Result{Snapshot: l.snap, Warnings: l.warnings, Files: files}, nil
}
