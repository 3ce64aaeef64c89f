package capture

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Mapping is what Anonymize renamed: original name to new name, per kind
// ("Node", "Namespace", "Pod" keyed namespace/name with the new
// namespace/name as value, ...). Keep it private: it undoes the
// anonymization.
type Mapping map[string]map[string]string

// namer hands out names prefix-1, prefix-2, ... in the order it is asked,
// the numbers zero-padded to width digits (so that names asked for in
// sorted order sort the same way).
type namer struct {
	prefix string
	m      map[string]string
	width  int
}

func newNamer(prefix string) *namer { return &namer{prefix: prefix, m: map[string]string{}} }

func (n *namer) get(old string) string {
	if old == "" {
		return ""
	}
	if v, ok := n.m[old]; ok {
		return v
	}
	v := fmt.Sprintf("%s-%0*d", n.prefix, n.width, len(n.m)+1)
	n.m[old] = v
	return v
}

// keptNamespaces name nothing about the cluster.
var keptNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true, "kube-node-lease": true}

// keptValues are label keys whose values say what a node is or tie pods
// to their controller, not whose it is.
var keptValues = map[string]bool{
	"kubernetes.io/arch": true, "kubernetes.io/os": true, "beta.kubernetes.io/arch": true, "beta.kubernetes.io/os": true,
	v1.LabelInstanceTypeStable: true, v1.LabelInstanceType: true,
	"pod-template-hash": true, "controller-revision-hash": true, "apps.kubernetes.io/pod-index": true,
	"batch.kubernetes.io/job-completion-index": true, "batch.kubernetes.io/controller-uid": true, "controller-uid": true,
}

// keptAnnotations are the annotations drasim reads.
var keptAnnotations = map[string]bool{"resource.kubernetes.io/pod-claim-name": true, v1.MirrorPodAnnotationKey: true}

// anonymizer renames consistently across every object of a snapshot.
type anonymizer struct {
	nodes, namespaces, images, keys, values, claims, templates, slices, pdbs, rules *namer
	// workloads are per kind, keyed namespace/name.
	workloads map[string]*namer
	// pods are keyed namespace/name, valued with the new name.
	pods map[string]string
	podN int
	// replicaSets by namespace/name, to name a Deployment's after it.
	replicaSets map[string]*appsv1.ReplicaSet
}

// Anonymize renames, in place and consistently, what identifies a
// cluster: the names of nodes, namespaces (but the system ones), pods,
// workloads, claims, templates, slices and pools named after nodes,
// budgets and taint rules; label and taint keys and values (well-known
// kubernetes.io keys and the values that say what hardware a node is
// stay), selectors to match; container images. It drops annotations
// (but those drasim reads), environment, commands, volumes, addresses
// and node identities. Device attributes and capacities, drivers,
// DeviceClasses, PriorityClasses, requests and priorities stay: they
// decide where pods fit, so a replay decides the same, name for name.
func Anonymize(s *snapshot.Snapshot) Mapping {
	a := newAnonymizer(s)
	// Names first, in a fixed order, so that references resolve and the
	// same input gives the same names. The rewrites below then look the
	// names up; their order matters as well, since a name first met there
	// (an image, a label value) is numbered when it is met.
	a.nameObjects(s)
	a.scrubNamespacesAndNodes(s)
	a.scrubPods(s)
	a.scrubWorkloads(s)
	a.scrubPolicies(s)
	a.scrubDRA(s)
	a.scrubNodeGroups(s)
	return a.mapping()
}

func newAnonymizer(s *snapshot.Snapshot) *anonymizer {
	a := &anonymizer{
		nodes: newNamer("node"), namespaces: newNamer("ns"), images: newNamer("image"), keys: newNamer("example.com/label"),
		values: newNamer("value"), claims: newNamer("claim"), templates: newNamer("template"), slices: newNamer("slice"),
		pdbs: newNamer("pdb"), rules: newNamer("taint-rule"), workloads: map[string]*namer{}, pods: map[string]string{},
		replicaSets: map[string]*appsv1.ReplicaSet{},
	}
	for _, rs := range s.ReplicaSets {
		a.replicaSets[rs.Namespace+"/"+rs.Name] = rs
	}
	return a
}

// nameObjects numbers nodes, workloads and pods before anything is
// rewritten. Nodes keep their order by name: kube-scheduler's node order,
// and so its choice among equally scored nodes, follows it.
func (a *anonymizer) nameObjects(s *snapshot.Snapshot) {
	a.nodes.width = len(fmt.Sprint(len(s.Nodes)))
	for _, n := range sortedNames(s.Nodes, func(n *v1.Node) string { return n.Name }) {
		a.nodes.get(n)
	}
	for _, w := range []struct {
		kind  string
		names []string
	}{
		{"Deployment", sortedKeys(s.Deployments)}, {"StatefulSet", sortedKeys(s.StatefulSets)}, {"DaemonSet", sortedKeys(s.DaemonSets)},
		{"Job", sortedKeys(s.Jobs)}, {"ReplicaSet", sortedKeys(s.ReplicaSets)},
	} {
		for _, k := range w.names {
			a.workload(w.kind, k)
		}
	}
	pods := append([]*v1.Pod(nil), s.Pods...)
	sort.Slice(pods, func(i, j int) bool {
		return pods[i].Namespace+"/"+pods[i].Name < pods[j].Namespace+"/"+pods[j].Name
	})
	for _, p := range pods {
		a.pod(p)
	}
}

func (a *anonymizer) scrubNamespacesAndNodes(s *snapshot.Snapshot) {
	for _, o := range s.Namespaces {
		o.Name = a.namespace(o.Name)
		a.meta(&o.ObjectMeta, "")
		o.Spec, o.Status = v1.NamespaceSpec{}, v1.NamespaceStatus{}
	}
	for _, o := range s.Nodes {
		a.meta(&o.ObjectMeta, "")
		o.Name = a.nodes.get(o.Name)
		o.Spec.ProviderID, o.Spec.PodCIDR, o.Spec.PodCIDRs, o.Spec.ConfigSource = "", "", nil, nil
		o.Spec.Taints = a.taints(o.Spec.Taints)
		st := &o.Status
		st.Addresses, st.NodeInfo, st.DaemonEndpoints, st.VolumesInUse, st.VolumesAttached, st.Config, st.Features = nil, v1.NodeSystemInfo{}, v1.NodeDaemonEndpoints{}, nil, nil, nil, nil
		for i := range st.Conditions {
			st.Conditions[i].Message = ""
		}
		for i := range st.Images {
			for j, name := range st.Images[i].Names {
				st.Images[i].Names[j] = a.images.get(name)
			}
		}
	}
}

func (a *anonymizer) scrubPods(s *snapshot.Snapshot) {
	for _, o := range s.Pods {
		ns := o.Namespace
		a.meta(&o.ObjectMeta, ns)
		a.podSpec(&o.Spec, ns)
		a.podStatus(&o.Status, ns)
		o.Name = a.pods[ns+"/"+o.Name]
		o.Namespace = a.namespace(ns)
	}
}

func (a *anonymizer) scrubWorkloads(s *snapshot.Snapshot) {
	for _, o := range s.Deployments {
		ns := o.Namespace
		a.renameWorkload(&o.ObjectMeta, "Deployment")
		o.Spec.Selector = a.selector(o.Spec.Selector)
		a.template(&o.Spec.Template, ns)
	}
	for _, o := range s.ReplicaSets {
		ns := o.Namespace
		a.renameWorkload(&o.ObjectMeta, "ReplicaSet")
		o.Spec.Selector = a.selector(o.Spec.Selector)
		a.template(&o.Spec.Template, ns)
	}
	for _, o := range s.StatefulSets {
		ns := o.Namespace
		a.renameWorkload(&o.ObjectMeta, "StatefulSet")
		o.Spec.Selector = a.selector(o.Spec.Selector)
		o.Spec.ServiceName = ""
		o.Spec.VolumeClaimTemplates = nil
		a.template(&o.Spec.Template, ns)
	}
	for _, o := range s.DaemonSets {
		ns := o.Namespace
		a.renameWorkload(&o.ObjectMeta, "DaemonSet")
		o.Spec.Selector = a.selector(o.Spec.Selector)
		a.template(&o.Spec.Template, ns)
	}
	for _, o := range s.Jobs {
		ns := o.Namespace
		a.renameWorkload(&o.ObjectMeta, "Job")
		o.Spec.Selector = a.selector(o.Spec.Selector)
		a.template(&o.Spec.Template, ns)
	}
}

// scrubPolicies rewrites the cluster-wide policy objects: disruption
// budgets, priority classes and device classes.
func (a *anonymizer) scrubPolicies(s *snapshot.Snapshot) {
	for _, o := range s.PodDisruptionBudgets {
		a.meta(&o.ObjectMeta, o.Namespace)
		o.Name = a.pdbs.get(o.Namespace + "/" + o.Name)
		o.Namespace = a.namespace(o.Namespace)
		o.Spec.Selector = a.selector(o.Spec.Selector)
		// The counts decide evictions and preemption's victims; only the
		// names of pods being evicted would identify anything.
		o.Status.DisruptedPods = nil
	}
	for _, o := range s.PriorityClasses {
		a.meta(&o.ObjectMeta, "")
		o.Description = ""
	}
	for _, o := range s.DeviceClasses {
		a.meta(&o.ObjectMeta, "")
	}
}

func (a *anonymizer) scrubDRA(s *snapshot.Snapshot) {
	for _, o := range s.ResourceSlices {
		a.meta(&o.ObjectMeta, "")
		o.Name = a.slices.get(o.Name)
		sp := &o.Spec
		if sp.NodeName != nil {
			n := a.nodes.get(*sp.NodeName)
			sp.NodeName = &n
		}
		sp.NodeSelector = a.nodeSelector(sp.NodeSelector)
		sp.Pool.Name = a.pool(sp.Pool.Name)
		for i := range sp.Devices {
			if d := &sp.Devices[i]; d.NodeName != nil {
				n := a.nodes.get(*d.NodeName)
				d.NodeName = &n
			} else {
				d.NodeSelector = a.nodeSelector(d.NodeSelector)
			}
		}
	}
	for _, o := range s.DeviceTaintRules {
		a.meta(&o.ObjectMeta, "")
		o.Name = a.rules.get(o.Name)
		if sel := o.Spec.DeviceSelector; sel != nil && sel.Pool != nil {
			p := a.pool(*sel.Pool)
			sel.Pool = &p
		}
		o.Status = resourceapi.DeviceTaintRuleStatus{}
	}
	for _, o := range s.ResourceClaimTemplates {
		a.meta(&o.ObjectMeta, o.Namespace)
		o.Name = a.templates.get(o.Namespace + "/" + o.Name)
		o.Namespace = a.namespace(o.Namespace)
		a.meta(&o.Spec.ObjectMeta, "")
	}
	for _, o := range s.ResourceClaims {
		ns := o.Namespace
		a.meta(&o.ObjectMeta, ns)
		o.Name = a.claims.get(ns + "/" + o.Name)
		o.Namespace = a.namespace(ns)
		for i := range o.Status.ReservedFor {
			r := &o.Status.ReservedFor[i]
			if v, ok := a.pods[ns+"/"+r.Name]; ok && r.Resource == "pods" {
				r.Name = v
			}
		}
		if al := o.Status.Allocation; al != nil {
			al.NodeSelector = a.nodeSelector(al.NodeSelector)
			for i := range al.Devices.Results {
				al.Devices.Results[i].Pool = a.pool(al.Devices.Results[i].Pool)
			}
		}
		o.Status.Devices = nil
	}
}

func (a *anonymizer) scrubNodeGroups(s *snapshot.Snapshot) {
	for _, ng := range s.NodeGroups {
		ng.Spec.TemplateFrom = a.nodes.get(ng.Spec.TemplateFrom)
		ng.Spec.NodeSelector = a.selector(ng.Spec.NodeSelector)
		ng.Spec.Labels = a.labels(ng.Spec.Labels)
		if ng.Spec.Zone != "" {
			ng.Spec.Zone = a.value(v1.LabelTopologyZone, ng.Spec.Zone)
		}
		if t := ng.Spec.Template; t != nil {
			t.Node.Labels = a.labels(t.Node.Labels)
			t.Node.Spec.Taints = a.taints(t.Node.Spec.Taints)
		}
	}
}

func sortedNames[T any](list []*T, name func(*T) string) []string {
	out := make([]string, len(list))
	for i, o := range list {
		out[i] = name(o)
	}
	sort.Strings(out)
	return out
}

// sortedKeys returns namespace/name of namespaced objects, sorted.
func sortedKeys[T any, PT interface {
	*T
	metav1.Object
}](list []PT) []string {
	out := make([]string, len(list))
	for i, o := range list {
		out[i] = o.GetNamespace() + "/" + o.GetName()
	}
	sort.Strings(out)
	return out
}

func (a *anonymizer) namespace(ns string) string {
	if keptNamespaces[ns] || ns == "" {
		return ns
	}
	return a.namespaces.get(ns)
}

// workload names a workload; a ReplicaSet of a Deployment keeps its
// "<deployment>-<hash>" form.
func (a *anonymizer) workload(kind, key string) string {
	n := a.workloads[kind]
	if n == nil {
		n = newNamer(strings.ToLower(kind))
		a.workloads[kind] = n
	}
	if v, ok := n.m[key]; ok {
		return v
	}
	if rs := a.replicaSets[key]; kind == "ReplicaSet" && rs != nil {
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" && strings.HasPrefix(rs.Name, ref.Name+"-") {
			n.m[key] = a.workload("Deployment", rs.Namespace+"/"+ref.Name) + rs.Name[len(ref.Name):]
			return n.m[key]
		}
	}
	return n.get(key)
}

// pod names a pod after its controller's new name, keeping the suffix the
// controller gave it ("<statefulset>-<ordinal>", "<replicaset>-<hash>").
func (a *anonymizer) pod(p *v1.Pod) {
	key := p.Namespace + "/" + p.Name
	ref := metav1.GetControllerOf(p)
	// A ReplicaSet the dump lacks is tied to its Deployment by its name,
	// "<deployment>-<pod-template-hash>": keep that form.
	if hash := p.Labels["pod-template-hash"]; ref != nil && ref.Kind == "ReplicaSet" && hash != "" && strings.HasSuffix(ref.Name, "-"+hash) {
		rsKey := p.Namespace + "/" + ref.Name
		if _, listed := a.replicaSets[rsKey]; !listed {
			rs := a.workloads["ReplicaSet"]
			if rs == nil {
				rs = newNamer("replicaset")
				a.workloads["ReplicaSet"] = rs
			}
			if _, named := rs.m[rsKey]; !named {
				rs.m[rsKey] = a.workload("Deployment", p.Namespace+"/"+strings.TrimSuffix(ref.Name, "-"+hash)) + "-" + hash
			}
		}
	}
	if ref != nil && strings.HasPrefix(p.Name, ref.Name+"-") {
		a.pods[key] = a.workload(ref.Kind, p.Namespace+"/"+ref.Name) + p.Name[len(ref.Name):]
		return
	}
	a.podN++
	a.pods[key] = fmt.Sprintf("pod-%d", a.podN)
}

func (a *anonymizer) renameWorkload(m *metav1.ObjectMeta, kind string) {
	key := m.Namespace + "/" + m.Name
	a.meta(m, m.Namespace)
	m.Name = a.workloads[kind].m[key]
	m.Namespace = a.namespace(m.Namespace)
}

// meta renames labels and owner references, drops annotations (but those
// drasim reads) and what only the API server needs.
func (a *anonymizer) meta(m *metav1.ObjectMeta, ns string) {
	m.Labels = a.labels(m.Labels)
	var kept map[string]string
	for k, v := range m.Annotations { // no new names: order does not matter
		if keptAnnotations[k] {
			if kept == nil {
				kept = map[string]string{}
			}
			kept[k] = v
		}
	}
	m.Annotations = kept
	m.GenerateName, m.ResourceVersion, m.ManagedFields = "", "", nil
	for i := range m.OwnerReferences {
		r := &m.OwnerReferences[i]
		switch r.Kind {
		case "Pod":
			if v, ok := a.pods[ns+"/"+r.Name]; ok {
				r.Name = v
			}
		case "Node":
			r.Name = a.nodes.get(r.Name)
		default:
			if n := a.workloads[r.Kind]; n != nil {
				if v, ok := n.m[ns+"/"+r.Name]; ok {
					r.Name = v
					continue
				}
			}
			r.Name = a.values.get(r.Kind + "/" + r.Name)
		}
	}
}

// key renames a label or taint key; keys of the kubernetes.io and k8s.io
// domains stay.
func (a *anonymizer) key(k string) string {
	prefix, _, found := strings.Cut(k, "/")
	if found && (strings.HasSuffix(prefix, "kubernetes.io") || strings.HasSuffix(prefix, "k8s.io")) {
		return k
	}
	if k == "pod-template-hash" || k == "controller-revision-hash" || k == "controller-uid" || k == "job-name" {
		return k
	}
	return a.keys.get(k)
}

// value renames a label value under its (old) key: object names through
// the object's mapping, hardware descriptions kept, the rest value-N.
func (a *anonymizer) value(k, v string) string {
	switch {
	case v == "":
		return ""
	case keptValues[k]:
		return v
	case k == v1.LabelHostname:
		return a.nodes.get(v)
	case k == "kubernetes.io/metadata.name":
		return a.namespace(v)
	}
	return a.values.get(v)
}

func (a *anonymizer) labels(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	// In key order: new names are handed out in the order they are asked.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out[a.key(k)] = a.value(k, m[k])
	}
	return out
}

func (a *anonymizer) selector(s *metav1.LabelSelector) *metav1.LabelSelector {
	if s == nil {
		return nil
	}
	out := &metav1.LabelSelector{MatchLabels: a.labels(s.MatchLabels)}
	for _, r := range s.MatchExpressions {
		nr := metav1.LabelSelectorRequirement{Key: a.key(r.Key), Operator: r.Operator}
		for _, v := range r.Values {
			nr.Values = append(nr.Values, a.value(r.Key, v))
		}
		out.MatchExpressions = append(out.MatchExpressions, nr)
	}
	return out
}

func (a *anonymizer) nodeSelector(s *v1.NodeSelector) *v1.NodeSelector {
	if s == nil {
		return nil
	}
	out := &v1.NodeSelector{}
	for _, t := range s.NodeSelectorTerms {
		out.NodeSelectorTerms = append(out.NodeSelectorTerms, a.nodeSelectorTerm(t))
	}
	return out
}

func (a *anonymizer) nodeSelectorTerm(t v1.NodeSelectorTerm) v1.NodeSelectorTerm {
	var out v1.NodeSelectorTerm
	for _, r := range t.MatchExpressions {
		nr := v1.NodeSelectorRequirement{Key: a.key(r.Key), Operator: r.Operator}
		for _, v := range r.Values {
			nr.Values = append(nr.Values, a.value(r.Key, v))
		}
		out.MatchExpressions = append(out.MatchExpressions, nr)
	}
	for _, r := range t.MatchFields {
		nr := v1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator}
		for _, v := range r.Values {
			if r.Key == metav1.ObjectNameField {
				v = a.nodes.get(v)
			}
			nr.Values = append(nr.Values, v)
		}
		out.MatchFields = append(out.MatchFields, nr)
	}
	return out
}

func (a *anonymizer) taints(ts []v1.Taint) []v1.Taint {
	for i := range ts {
		k := ts[i].Key
		ts[i].Key, ts[i].Value = a.key(k), a.value(k, ts[i].Value)
	}
	return ts
}

// pool renames a pool named after a node (the usual case for node-local
// drivers), keeps other pool names.
func (a *anonymizer) pool(p string) string {
	if v, ok := a.nodes.m[p]; ok {
		return v
	}
	for _, old := range slices.Sorted(maps.Keys(a.nodes.m)) {
		if strings.Contains(p, old) {
			return strings.Replace(p, old, a.nodes.m[old], 1)
		}
	}
	return p
}

// template renames a workload's pod template; ns is the workload's
// namespace before renaming.
func (a *anonymizer) template(t *v1.PodTemplateSpec, ns string) {
	a.meta(&t.ObjectMeta, ns)
	a.podSpec(&t.Spec, ns)
}

// podSpec renames what a pod spec refers to; ns is the pod's namespace
// before renaming, which claim and template references resolve in.
func (a *anonymizer) podSpec(s *v1.PodSpec, ns string) {
	if s.NodeName != "" {
		s.NodeName = a.nodes.get(s.NodeName)
	}
	s.NodeSelector = a.labels(s.NodeSelector)
	s.Tolerations = a.tolerations(s.Tolerations)
	s.Volumes, s.ServiceAccountName, s.DeprecatedServiceAccount, s.Hostname, s.Subdomain, s.ImagePullSecrets = nil, "", "", "", "", nil
	for _, list := range [][]v1.Container{s.InitContainers, s.Containers} {
		for i := range list {
			c := &list[i]
			c.Image = a.images.get(c.Image)
			c.Command, c.Args, c.Env, c.EnvFrom, c.VolumeMounts, c.VolumeDevices = nil, nil, nil, nil, nil, nil
			c.LivenessProbe, c.ReadinessProbe, c.StartupProbe, c.Lifecycle, c.WorkingDir = nil, nil, nil, nil, ""
		}
	}
	s.EphemeralContainers = nil
	for i := range s.ResourceClaims {
		rc := &s.ResourceClaims[i]
		if rc.ResourceClaimName != nil {
			n := a.claims.get(ns + "/" + *rc.ResourceClaimName)
			rc.ResourceClaimName = &n
		}
		if rc.ResourceClaimTemplateName != nil {
			n := a.templates.get(ns + "/" + *rc.ResourceClaimTemplateName)
			rc.ResourceClaimTemplateName = &n
		}
	}
	if af := s.Affinity; af != nil {
		if na := af.NodeAffinity; na != nil {
			na.RequiredDuringSchedulingIgnoredDuringExecution = a.nodeSelector(na.RequiredDuringSchedulingIgnoredDuringExecution)
			for i := range na.PreferredDuringSchedulingIgnoredDuringExecution {
				p := &na.PreferredDuringSchedulingIgnoredDuringExecution[i]
				p.Preference = a.nodeSelectorTerm(p.Preference)
			}
		}
		for _, pa := range []*v1.PodAffinity{af.PodAffinity} {
			if pa != nil {
				a.podAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution)
				a.weightedTerms(pa.PreferredDuringSchedulingIgnoredDuringExecution)
			}
		}
		if pa := af.PodAntiAffinity; pa != nil {
			a.podAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution)
			a.weightedTerms(pa.PreferredDuringSchedulingIgnoredDuringExecution)
		}
	}
	for i := range s.TopologySpreadConstraints {
		c := &s.TopologySpreadConstraints[i]
		c.TopologyKey = a.key(c.TopologyKey)
		c.LabelSelector = a.selector(c.LabelSelector)
		for j, k := range c.MatchLabelKeys {
			c.MatchLabelKeys[j] = a.key(k)
		}
	}
}

func (a *anonymizer) podAffinityTerms(terms []v1.PodAffinityTerm) {
	for i := range terms {
		t := &terms[i]
		t.TopologyKey = a.key(t.TopologyKey)
		t.LabelSelector = a.selector(t.LabelSelector)
		t.NamespaceSelector = a.selector(t.NamespaceSelector)
		for j, ns := range t.Namespaces {
			t.Namespaces[j] = a.namespace(ns)
		}
		for j, k := range t.MatchLabelKeys {
			t.MatchLabelKeys[j] = a.key(k)
		}
		for j, k := range t.MismatchLabelKeys {
			t.MismatchLabelKeys[j] = a.key(k)
		}
	}
}

func (a *anonymizer) weightedTerms(terms []v1.WeightedPodAffinityTerm) {
	for i := range terms {
		one := []v1.PodAffinityTerm{terms[i].PodAffinityTerm}
		a.podAffinityTerms(one)
		terms[i].PodAffinityTerm = one[0]
	}
}

func (a *anonymizer) tolerations(ts []v1.Toleration) []v1.Toleration {
	for i := range ts {
		k := ts[i].Key
		if k != "" {
			ts[i].Key = a.key(k)
		}
		ts[i].Value = a.value(k, ts[i].Value)
	}
	return ts
}

func (a *anonymizer) podStatus(st *v1.PodStatus, ns string) {
	for i := range st.ResourceClaimStatuses {
		if c := &st.ResourceClaimStatuses[i]; c.ResourceClaimName != nil {
			n := a.claims.get(ns + "/" + *c.ResourceClaimName)
			c.ResourceClaimName = &n
		}
	}
	if e := st.ExtendedResourceClaimStatus; e != nil {
		e.ResourceClaimName = a.claims.get(ns + "/" + e.ResourceClaimName)
	}
	st.HostIP, st.HostIPs, st.PodIP, st.PodIPs, st.Message = "", nil, "", nil, ""
	if st.NominatedNodeName != "" {
		st.NominatedNodeName = a.nodes.get(st.NominatedNodeName)
	}
	for i := range st.Conditions {
		st.Conditions[i].Message = ""
	}
	st.ContainerStatuses, st.InitContainerStatuses, st.EphemeralContainerStatuses = nil, nil, nil
}

func (a *anonymizer) mapping() Mapping {
	m := Mapping{"Node": a.nodes.m, "Namespace": a.namespaces.m, "Pod": a.pods, "ResourceClaim": a.claims.m,
		"ResourceClaimTemplate": a.templates.m, "LabelKey": a.keys.m, "LabelValue": a.values.m, "Image": a.images.m}
	for kind, n := range a.workloads {
		m[kind] = n.m
	}
	return m
}
