package interpodaffinity

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
)

// Name is the plugin name in kube-scheduler profiles.
const Name = "InterPodAffinity"

// NamespaceLister gives the namespaces that namespaceSelector terms select.
type NamespaceLister interface {
	// Get returns the namespace or nil.
	Get(name string) *v1.Namespace
	// List returns the namespaces whose labels match selector.
	List(selector labels.Selector) []*v1.Namespace
}

// Namespaces is a NamespaceLister over fixed namespaces.
type Namespaces struct {
	list   []*v1.Namespace
	byName map[string]*v1.Namespace
}

var _ NamespaceLister = (*Namespaces)(nil)

// NewNamespaces indexes the given namespaces.
func NewNamespaces(nss []*v1.Namespace) *Namespaces {
	n := &Namespaces{list: nss, byName: make(map[string]*v1.Namespace, len(nss))}
	for _, ns := range nss {
		n.byName[ns.Name] = ns
	}
	return n
}

// Get returns the namespace or nil.
func (n *Namespaces) Get(name string) *v1.Namespace { return n.byName[name] }

// List returns the matching namespaces in the order given.
func (n *Namespaces) List(selector labels.Selector) []*v1.Namespace {
	var out []*v1.Namespace
	for _, ns := range n.list {
		if selector.Matches(labels.Set(ns.Labels)) {
			out = append(out, ns)
		}
	}
	return out
}

// InterPodAffinity is the plugin.
type InterPodAffinity struct {
	hardPodAffinityWeight              int32
	ignorePreferredTermsOfExistingPods bool
	nodes                              framework.NodeLister
	namespaces                         NamespaceLister
}

var (
	_ framework.PreFilterPlugin = (*InterPodAffinity)(nil)
	_ framework.FilterPlugin    = (*InterPodAffinity)(nil)
	_ framework.PreScorePlugin  = (*InterPodAffinity)(nil)
	_ framework.ScorePlugin     = (*InterPodAffinity)(nil)
	_ framework.ScoreNormalizer = (*InterPodAffinity)(nil)
)

// New returns the plugin for args (defaulted, then validated). nodes gives
// the cluster view; namespaces may be nil.
func New(args config.InterPodAffinityArgs, nodes framework.NodeLister, namespaces NamespaceLister) (*InterPodAffinity, error) {
	if nodes == nil {
		return nil, errors.New("interpodaffinity: nil NodeLister")
	}
	args = config.DefaultInterPodAffinityArgs(args)
	if err := config.ValidateInterPodAffinityArgs(args); err != nil {
		return nil, fmt.Errorf("interpodaffinity: InterPodAffinityArgs: %w", err)
	}
	return &InterPodAffinity{
		hardPodAffinityWeight:              *args.HardPodAffinityWeight,
		ignorePreferredTermsOfExistingPods: args.IgnorePreferredTermsOfExistingPods,
		nodes:                              nodes,
		namespaces:                         namespaces,
	}, nil
}

// Name returns Name.
func (*InterPodAffinity) Name() string { return Name }

// mergeAffinityTermNamespaces turns a term's non-empty namespace selector
// into the names it selects now (kube does this for the incoming pod's
// terms only). An empty selector ({}) matches all namespaces and is kept.
func (pl *InterPodAffinity) mergeAffinityTermNamespaces(at *framework.AffinityTerm) {
	if at.NamespaceSelector.Empty() {
		return
	}
	if pl.namespaces != nil {
		for _, ns := range pl.namespaces.List(at.NamespaceSelector) {
			at.Namespaces.Insert(ns.Name)
		}
	}
	at.NamespaceSelector = labels.Nothing()
}

// namespaceLabels returns a copy of the labels of the pod's namespace.
func (pl *InterPodAffinity) namespaceLabels(ns string) labels.Set {
	if pl.namespaces == nil {
		return nil
	}
	if n := pl.namespaces.Get(ns); n != nil {
		return labels.Merge(n.Labels, nil)
	}
	return nil
}
