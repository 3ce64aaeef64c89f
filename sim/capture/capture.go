// Package capture reads a live cluster through client-go, with the user's
// kubeconfig and context as kubectl reads them, into a snapshot that
// drasim loads (cluster.WriteList writes it as a List). It only lists:
// drasim never writes to a cluster.
//
// It reads the kinds drasim models: Namespaces, Nodes, Pods,
// PriorityClasses, Deployments, ReplicaSets, StatefulSets, DaemonSets,
// Jobs, PodDisruptionBudgets and resource.k8s.io's DeviceClasses,
// ResourceSlices, ResourceClaims, ResourceClaimTemplates and
// DeviceTaintRules. managedFields are dropped. Anonymize (anonymize.go)
// renames what identifies a cluster and keeps what decides scheduling.
package capture

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/drasim/drasim/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// Source says which cluster to read: a kubeconfig file (empty: KUBECONFIG
// or ~/.kube/config, as kubectl) and a context (empty: the current one).
type Source struct {
	Kubeconfig string
	Context    string
}

// Options narrow what is read.
type Options struct {
	// Namespace limits the namespaced kinds to one namespace ("" for all).
	Namespace string
	// Selector keeps only the pods and workloads (Deployments,
	// ReplicaSets, StatefulSets, DaemonSets, Jobs) with these labels, and
	// the claims and templates they use. Cluster-scoped kinds are read
	// whole.
	Selector string
	// NodeGroups are copied into the snapshot (nodes are always read
	// whole, so the nodes their templateFrom names are there).
	NodeGroups []*snapshot.NodeGroup
	// Timeout bounds each request (default 30 s).
	Timeout time.Duration
}

// Config turns a Source into a client configuration as kubectl does. The
// errors say which kubeconfig and context failed and what exists.
func Config(src Source) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if src.Kubeconfig != "" {
		rules.ExplicitPath = src.Kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: src.Context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig %s: %w", kubeconfigName(rules), err)
	}
	name := src.Context
	if name == "" {
		name = raw.CurrentContext
	}
	if _, ok := raw.Contexts[name]; !ok {
		known := make([]string, 0, len(raw.Contexts))
		for c := range raw.Contexts {
			known = append(known, c)
		}
		sort.Strings(known)
		if name == "" {
			return nil, "", fmt.Errorf("kubeconfig %s: no current context; name one with --context (contexts: %s)", kubeconfigName(rules), listOrNone(known))
		}
		return nil, "", fmt.Errorf("kubeconfig %s: no context %q (contexts: %s)", kubeconfigName(rules), name, listOrNone(known))
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig %s, context %s: %w", kubeconfigName(rules), name, err)
	}
	return cfg, name, nil
}

func kubeconfigName(rules *clientcmd.ClientConfigLoadingRules) string {
	if rules.ExplicitPath != "" {
		return rules.ExplicitPath
	}
	if p := rules.GetLoadingPrecedence(); len(p) > 0 {
		return strings.Join(p, ":")
	}
	return "(none)"
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// Capture reads the cluster into a snapshot. A kind the server does not
// serve (an API group that is off) is skipped with a warning; any other
// failure is an error that names the kind and, for a refusal or an
// unreachable server, says so in words.
func Capture(ctx context.Context, cfg *rest.Config, opts Options) (*snapshot.Snapshot, []string, error) {
	cfg = rest.CopyConfig(cfg)
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	cfg.Timeout = opts.Timeout
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("client for %s: %w", cfg.Host, err)
	}
	var sel labels.Selector = labels.Everything()
	if opts.Selector != "" {
		if sel, err = labels.Parse(opts.Selector); err != nil {
			return nil, nil, fmt.Errorf("-l %q: %w", opts.Selector, err)
		}
	}
	r := &reader{ctx: ctx, host: cfg.Host, ns: opts.Namespace}
	s := snapshot.New()
	listClusterScoped(ctx, r, client, s, opts.Namespace == "")
	listNamespaced(ctx, r, client, s, opts.Namespace, metav1.ListOptions{LabelSelector: sel.String()})
	if r.err != nil {
		return nil, r.warnings, r.err
	}
	if opts.Selector != "" {
		keepUsed(s)
	}
	addNodeGroups(r, s, opts.NodeGroups)
	setKinds(s)
	return s, r.warnings, nil
}

// listClusterScoped reads the cluster-scoped kinds, whole; namespaces
// only when the capture is not limited to one.
// The client is the concrete *kubernetes.Clientset on purpose: passed as
// kubernetes.Interface, the linker must keep every typed client of
// client-go, which adds 11 MB to drasim's binary.
func listClusterScoped(ctx context.Context, r *reader, c *kubernetes.Clientset, s *snapshot.Snapshot, namespaces bool) {
	lo := metav1.ListOptions{}
	list(r, "nodes", func() ([]v1.Node, error) {
		l, err := c.CoreV1().Nodes().List(ctx, lo)
		return items(l, err, func(l *v1.NodeList) []v1.Node { return l.Items })
	}, func(o *v1.Node) { s.Nodes = append(s.Nodes, o) })
	list(r, "priorityclasses", func() ([]schedulingv1.PriorityClass, error) {
		l, err := c.SchedulingV1().PriorityClasses().List(ctx, lo)
		return items(l, err, func(l *schedulingv1.PriorityClassList) []schedulingv1.PriorityClass { return l.Items })
	}, func(o *schedulingv1.PriorityClass) { s.PriorityClasses = append(s.PriorityClasses, o) })
	list(r, "deviceclasses", func() ([]resourceapi.DeviceClass, error) {
		l, err := c.ResourceV1().DeviceClasses().List(ctx, lo)
		return items(l, err, func(l *resourceapi.DeviceClassList) []resourceapi.DeviceClass { return l.Items })
	}, func(o *resourceapi.DeviceClass) { s.DeviceClasses = append(s.DeviceClasses, o) })
	list(r, "resourceslices", func() ([]resourceapi.ResourceSlice, error) {
		l, err := c.ResourceV1().ResourceSlices().List(ctx, lo)
		return items(l, err, func(l *resourceapi.ResourceSliceList) []resourceapi.ResourceSlice { return l.Items })
	}, func(o *resourceapi.ResourceSlice) { s.ResourceSlices = append(s.ResourceSlices, o) })
	list(r, "devicetaintrules", func() ([]resourceapi.DeviceTaintRule, error) {
		l, err := c.ResourceV1().DeviceTaintRules().List(ctx, lo)
		return items(l, err, func(l *resourceapi.DeviceTaintRuleList) []resourceapi.DeviceTaintRule { return l.Items })
	}, func(o *resourceapi.DeviceTaintRule) { s.DeviceTaintRules = append(s.DeviceTaintRules, o) })
	if namespaces {
		list(r, "namespaces", func() ([]v1.Namespace, error) {
			l, err := c.CoreV1().Namespaces().List(ctx, lo)
			return items(l, err, func(l *v1.NamespaceList) []v1.Namespace { return l.Items })
		}, func(o *v1.Namespace) { s.Namespaces = append(s.Namespaces, o) })
	}
}

// listNamespaced reads the namespaced kinds in the namespace asked for
// (all when ns is empty); pods and workloads by label (sl).
func listNamespaced(ctx context.Context, r *reader, c *kubernetes.Clientset, s *snapshot.Snapshot, ns string, sl metav1.ListOptions) {
	lo := metav1.ListOptions{}
	list(r, "pods", func() ([]v1.Pod, error) {
		l, err := c.CoreV1().Pods(ns).List(ctx, sl)
		return items(l, err, func(l *v1.PodList) []v1.Pod { return l.Items })
	}, func(o *v1.Pod) { s.Pods = append(s.Pods, o) })
	list(r, "deployments", func() ([]appsv1.Deployment, error) {
		l, err := c.AppsV1().Deployments(ns).List(ctx, sl)
		return items(l, err, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items })
	}, func(o *appsv1.Deployment) { s.Deployments = append(s.Deployments, o) })
	list(r, "replicasets", func() ([]appsv1.ReplicaSet, error) {
		l, err := c.AppsV1().ReplicaSets(ns).List(ctx, sl)
		return items(l, err, func(l *appsv1.ReplicaSetList) []appsv1.ReplicaSet { return l.Items })
	}, func(o *appsv1.ReplicaSet) { s.ReplicaSets = append(s.ReplicaSets, o) })
	list(r, "statefulsets", func() ([]appsv1.StatefulSet, error) {
		l, err := c.AppsV1().StatefulSets(ns).List(ctx, sl)
		return items(l, err, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items })
	}, func(o *appsv1.StatefulSet) { s.StatefulSets = append(s.StatefulSets, o) })
	list(r, "daemonsets", func() ([]appsv1.DaemonSet, error) {
		l, err := c.AppsV1().DaemonSets(ns).List(ctx, sl)
		return items(l, err, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items })
	}, func(o *appsv1.DaemonSet) { s.DaemonSets = append(s.DaemonSets, o) })
	list(r, "jobs", func() ([]batchv1.Job, error) {
		l, err := c.BatchV1().Jobs(ns).List(ctx, sl)
		return items(l, err, func(l *batchv1.JobList) []batchv1.Job { return l.Items })
	}, func(o *batchv1.Job) { s.Jobs = append(s.Jobs, o) })
	list(r, "poddisruptionbudgets", func() ([]policyv1.PodDisruptionBudget, error) {
		l, err := c.PolicyV1().PodDisruptionBudgets(ns).List(ctx, lo)
		return items(l, err, func(l *policyv1.PodDisruptionBudgetList) []policyv1.PodDisruptionBudget { return l.Items })
	}, func(o *policyv1.PodDisruptionBudget) { s.PodDisruptionBudgets = append(s.PodDisruptionBudgets, o) })
	list(r, "resourceclaims", func() ([]resourceapi.ResourceClaim, error) {
		l, err := c.ResourceV1().ResourceClaims(ns).List(ctx, lo)
		return items(l, err, func(l *resourceapi.ResourceClaimList) []resourceapi.ResourceClaim { return l.Items })
	}, func(o *resourceapi.ResourceClaim) { s.ResourceClaims = append(s.ResourceClaims, o) })
	list(r, "resourceclaimtemplates", func() ([]resourceapi.ResourceClaimTemplate, error) {
		l, err := c.ResourceV1().ResourceClaimTemplates(ns).List(ctx, lo)
		return items(l, err, func(l *resourceapi.ResourceClaimTemplateList) []resourceapi.ResourceClaimTemplate { return l.Items })
	}, func(o *resourceapi.ResourceClaimTemplate) {
		s.ResourceClaimTemplates = append(s.ResourceClaimTemplates, o)
	})
}

// addNodeGroups adds the NodeGroups given on the command line, with a
// warning for a templateFrom node the cluster does not have.
func addNodeGroups(r *reader, s *snapshot.Snapshot, groups []*snapshot.NodeGroup) {
	nodes := map[string]bool{}
	for _, n := range s.Nodes {
		nodes[n.Name] = true
	}
	for _, ng := range groups {
		s.NodeGroups = append(s.NodeGroups, ng.DeepCopy())
		if from := ng.Spec.TemplateFrom; from != "" && !nodes[from] {
			r.warnings = append(r.warnings, fmt.Sprintf("NodeGroup %s: its templateFrom node %q is not in the cluster", ng.Name, from))
		}
	}
}

// reader lists one kind after another and keeps the first error.
type reader struct {
	ctx      context.Context
	host, ns string
	err      error
	warnings []string
}

func items[L any, T any](l *L, err error, get func(*L) []T) ([]T, error) {
	if err != nil {
		return nil, err
	}
	return get(l), nil
}

// list reads one kind and appends copies of its objects, managedFields
// dropped.
func list[T any, PT interface {
	*T
	metav1.Object
}](r *reader, resource string, read func() ([]T, error), add func(PT)) {
	if r.err != nil {
		return
	}
	got, err := read()
	if err != nil {
		if apierrors.IsNotFound(err) {
			r.warnings = append(r.warnings, fmt.Sprintf("the server does not serve %s (its API group is off): none captured", resource))
			return
		}
		r.err = r.explain(resource, err)
		return
	}
	for i := range got {
		o := PT(&got[i])
		o.SetManagedFields(nil)
		add(o)
	}
}

// explain turns a failed list into an error a person can act on.
func (r *reader) explain(resource string, err error) error {
	scope := "in all namespaces"
	if r.ns != "" {
		scope = "in namespace " + r.ns
	}
	var uerr *url.Error
	var nerr net.Error
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("listing %s %s: forbidden: drasim capture needs get and list on the kinds it reads (docs/whatif.md lists them); the server said: %s", resource, scope, apiMessage(err))
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("listing %s: the API server at %s did not accept the kubeconfig's credentials (Unauthorized): %s", resource, r.host, apiMessage(err))
	case errors.As(err, &uerr) || errors.As(err, &nerr) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("cannot reach the API server at %s (listing %s): %w", r.host, resource, err)
	}
	return fmt.Errorf("listing %s %s: %w", resource, scope, err)
}

func apiMessage(err error) string {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se.ErrStatus.Message
	}
	return err.Error()
}

// keepUsed drops the claims and templates that no captured pod or
// workload uses (the selector narrowed pods and workloads).
func keepUsed(s *snapshot.Snapshot) {
	claims := map[string]bool{}
	templates := map[string]bool{}
	usePodSpec := func(ns string, spec *v1.PodSpec) {
		for _, pc := range spec.ResourceClaims {
			if pc.ResourceClaimName != nil {
				claims[ns+"/"+*pc.ResourceClaimName] = true
			}
			if pc.ResourceClaimTemplateName != nil {
				templates[ns+"/"+*pc.ResourceClaimTemplateName] = true
			}
		}
	}
	for _, p := range s.Pods {
		usePodSpec(p.Namespace, &p.Spec)
		for name := range resourceclaim.PodClaims(p) {
			claims[p.Namespace+"/"+name] = true
		}
	}
	for _, d := range s.Deployments {
		usePodSpec(d.Namespace, &d.Spec.Template.Spec)
	}
	for _, d := range s.ReplicaSets {
		usePodSpec(d.Namespace, &d.Spec.Template.Spec)
	}
	for _, d := range s.StatefulSets {
		usePodSpec(d.Namespace, &d.Spec.Template.Spec)
	}
	for _, d := range s.DaemonSets {
		usePodSpec(d.Namespace, &d.Spec.Template.Spec)
	}
	for _, d := range s.Jobs {
		usePodSpec(d.Namespace, &d.Spec.Template.Spec)
	}
	s.ResourceClaims = slices.DeleteFunc(s.ResourceClaims, func(c *resourceapi.ResourceClaim) bool { return !claims[c.Namespace+"/"+c.Name] })
	s.ResourceClaimTemplates = slices.DeleteFunc(s.ResourceClaimTemplates, func(t *resourceapi.ResourceClaimTemplate) bool {
		return !templates[t.Namespace+"/"+t.Name]
	})
}

// setKinds fills apiVersion and kind, which lists leave empty on items.
func setKinds(s *snapshot.Snapshot) {
	set := func(o interface{ GetObjectKind() schema.ObjectKind }, gv schema.GroupVersion, kind string) {
		o.GetObjectKind().SetGroupVersionKind(gv.WithKind(kind))
	}
	for _, o := range s.Namespaces {
		set(o, v1.SchemeGroupVersion, "Namespace")
	}
	for _, o := range s.Nodes {
		set(o, v1.SchemeGroupVersion, "Node")
	}
	for _, o := range s.Pods {
		set(o, v1.SchemeGroupVersion, "Pod")
	}
	for _, o := range s.PriorityClasses {
		set(o, schedulingv1.SchemeGroupVersion, "PriorityClass")
	}
	for _, o := range s.Deployments {
		set(o, appsv1.SchemeGroupVersion, "Deployment")
	}
	for _, o := range s.ReplicaSets {
		set(o, appsv1.SchemeGroupVersion, "ReplicaSet")
	}
	for _, o := range s.StatefulSets {
		set(o, appsv1.SchemeGroupVersion, "StatefulSet")
	}
	for _, o := range s.DaemonSets {
		set(o, appsv1.SchemeGroupVersion, "DaemonSet")
	}
	for _, o := range s.Jobs {
		set(o, batchv1.SchemeGroupVersion, "Job")
	}
	for _, o := range s.PodDisruptionBudgets {
		set(o, policyv1.SchemeGroupVersion, "PodDisruptionBudget")
	}
	for _, o := range s.DeviceClasses {
		set(o, resourceapi.SchemeGroupVersion, "DeviceClass")
	}
	for _, o := range s.ResourceSlices {
		set(o, resourceapi.SchemeGroupVersion, "ResourceSlice")
	}
	for _, o := range s.ResourceClaims {
		set(o, resourceapi.SchemeGroupVersion, "ResourceClaim")
	}
	for _, o := range s.ResourceClaimTemplates {
		set(o, resourceapi.SchemeGroupVersion, "ResourceClaimTemplate")
	}
	for _, o := range s.DeviceTaintRules {
		set(o, resourceapi.SchemeGroupVersion, "DeviceTaintRule")
	}
}
