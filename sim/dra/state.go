package dra

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sort"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/sim/feature"
	"k8s.io/apimachinery/pkg/types"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// State is the DRA side of the cluster: what kube-scheduler's DRA manager
// (the claim assume cache, the slice tracker and the class lister) knows.
// It is mutated only by the scheduling loop, one pod at a time.
type State struct {
	gates    feature.Gates
	features structured.Features

	classes     map[string]*resourceapi.DeviceClass
	classList   []*resourceapi.DeviceClass
	slices      []*resourceapi.ResourceSlice // with DeviceTaintRules applied
	claims      map[claimRef]*resourceapi.ResourceClaim
	claimOrder  []claimRef // the zero ref marks a removed claim's place (lifecycle.go)
	claimPos    map[claimRef]int
	deadClaims  int
	extResource map[v1.ResourceName]*resourceapi.DeviceClass

	allocated  sets.Set[structured.DeviceID]
	capacities structured.ConsumedCapacityCollection
	// sharesOf holds the shares in use by device, and uncounted the shares
	// of the devices that have no entry in capacities: what the allocator
	// is handed as its AllocatedSharedDeviceIDs (AllocatedState).
	sharesOf  map[structured.DeviceID]sets.Set[structured.SharedDeviceID]
	uncounted sets.Set[structured.SharedDeviceID]
	// noSharedIDs and noCapacities stay empty: what the allocator sees of
	// shared allocations when consumable capacity is off.
	noSharedIDs  sets.Set[structured.SharedDeviceID]
	noCapacities structured.ConsumedCapacityCollection

	// Node equivalence (equivalence.go).
	equivalence bool
	nodes       map[string]*nodePools
	poolNode    map[poolRef]string
	// poolFacts are, per pool, its allocation facts and the sum of their
	// hashes (factHash); pools without facts have no entry.
	poolFacts map[poolRef]*poolFactSet
	// nodeSlices are each node's slices in snapshot order, for allocators
	// that answer for one node.
	nodeSlices map[string][]*resourceapi.ResourceSlice
	// version grows whenever a node's class changes (changedPools says
	// which); epoch grows when pools are added, which may change any
	// node's class. Both let callers keep class keys between cycles.
	version, epoch uint64
	// changedPools logs the nodes whose allocation changed, oldest first;
	// changedBase counts the entries dropped from its front.
	changedPools []*nodePools
	changedBase  int
	// retired keeps the sorted pools of nodes whose slices were removed
	// (lifecycle.go): answers cached on them are translated from them.
	retired map[string][]poolRef
	// mutations counts the calls that changed (or may have changed) a
	// claim, an allocation or a slice (see Mutations).
	mutations uint64
	// exclusive caches, per allocation result, what trackAllocated
	// records of it (exclusiveOf).
	exclusive map[*resourceapi.AllocationResult]*exclusiveDevices
}

// Mutations counts the changes of the state so far: every method that
// changes a claim, an allocation, a reservation or the slices adds at
// least one. Two equal counts mean that nothing a scheduling cycle reads
// here changed in between (the scheduler's memo of failed cycles relies
// on it, sim/schedule/memo.go).
func (s *State) Mutations() uint64 { return s.mutations }

// NewState builds the DRA state from the snapshot's objects. Claims are
// copied, so the state can record allocations without touching the input.
func NewState(gates feature.Gates, classes []*resourceapi.DeviceClass, slices []*resourceapi.ResourceSlice, rules []*resourceapi.DeviceTaintRule, claims []*resourceapi.ResourceClaim) *State {
	s := &State{
		gates:        gates,
		features:     gates.AllocatorFeatures(),
		classes:      map[string]*resourceapi.DeviceClass{},
		claims:       map[claimRef]*resourceapi.ResourceClaim{},
		claimPos:     map[claimRef]int{},
		extResource:  map[v1.ResourceName]*resourceapi.DeviceClass{},
		allocated:    sets.New[structured.DeviceID](),
		capacities:   structured.NewConsumedCapacityCollection(),
		sharesOf:     map[structured.DeviceID]sets.Set[structured.SharedDeviceID]{},
		uncounted:    sets.New[structured.SharedDeviceID](),
		noSharedIDs:  sets.New[structured.SharedDeviceID](),
		noCapacities: structured.NewConsumedCapacityCollection(),
	}
	for _, c := range classes {
		s.classes[c.Name] = c
		s.classList = append(s.classList, c)
	}
	if gates["DRAExtendedResource"] {
		s.indexExtendedResources()
	}
	if !gates["DRADeviceTaintRules"] {
		rules = nil
	}
	for _, sl := range slices {
		s.slices = append(s.slices, applyTaintRules(sl, rules))
	}
	s.poolFacts = map[poolRef]*poolFactSet{}
	s.indexNodes()
	for _, c := range claims {
		s.AddClaim(c.DeepCopy())
	}
	return s
}

// indexExtendedResources maps extended resource names to the classes that
// provide them: the explicit spec.extendedResourceName and the implicit
// deviceclass.resource.kubernetes.io/<class>. When several classes name the
// same resource, kube picks the newest (then by name); drasim, without
// creation times in most snapshots, uses the same rule with the class name
// as the last tie-break.
func (s *State) indexExtendedResources() {
	sorted := append([]*resourceapi.DeviceClass(nil), s.classList...)
	sort.SliceStable(sorted, func(i, j int) bool {
		ti, tj := sorted[i].CreationTimestamp, sorted[j].CreationTimestamp
		if !ti.Equal(&tj) {
			return tj.Before(&ti)
		}
		return sorted[i].Name < sorted[j].Name
	})
	for _, c := range sorted {
		implicit := v1.ResourceName(resourceapi.ResourceDeviceClassPrefix + c.Name)
		if _, ok := s.extResource[implicit]; !ok {
			s.extResource[implicit] = c
		}
		if c.Spec.ExtendedResourceName != nil {
			name := v1.ResourceName(*c.Spec.ExtendedResourceName)
			if _, ok := s.extResource[name]; !ok {
				s.extResource[name] = c
			}
		}
	}
}

// ExtendedResourceClass returns the class that provides an extended resource
// through DRA, or nil.
func (s *State) ExtendedResourceClass(name v1.ResourceName) *resourceapi.DeviceClass {
	return s.extResource[name]
}

// ExtendedResourceNames lists the extended resources DeviceClasses provide.
func (s *State) ExtendedResourceNames() sets.Set[v1.ResourceName] {
	out := sets.New[v1.ResourceName]()
	for n := range s.extResource {
		out.Insert(n)
	}
	return out
}

// applyTaintRules returns the slice with the taints of every matching
// DeviceTaintRule added to its devices, as the scheduler's slice tracker
// does. The input slice is never modified. A patched slice has its own
// device list and taint lists, and shares everything else (attributes,
// capacities, counters, metadata) with the input, read-only: a deep copy
// per slice doubled the slices' memory as soon as one rule matched a
// whole driver.
func applyTaintRules(slice *resourceapi.ResourceSlice, rules []*resourceapi.DeviceTaintRule) *resourceapi.ResourceSlice {
	patched := slice
	for _, rule := range rules {
		sel := rule.Spec.DeviceSelector
		if sel == nil {
			continue // no selector selects nothing
		}
		if sel.Driver != nil && *sel.Driver != slice.Spec.Driver {
			continue
		}
		if sel.Pool != nil && *sel.Pool != slice.Spec.Pool.Name {
			continue
		}
		for i, d := range slice.Spec.Devices {
			if sel.Device != nil && *sel.Device != d.Name {
				continue
			}
			if patched == slice {
				cp := *slice
				cp.Spec.Devices = slices.Clone(slice.Spec.Devices)
				patched = &cp
			}
			// A full slice expression: the append copies the taints
			// instead of writing into the input's array.
			taints := patched.Spec.Devices[i].Taints
			patched.Spec.Devices[i].Taints = append(taints[:len(taints):len(taints)], rule.Spec.Taint)
		}
	}
	return patched
}

// claimRef names a claim in the state's maps: two strings, so that a
// look-up by namespace and name builds no key string.
type claimRef struct{ namespace, name string }

func claimKey(namespace, name string) claimRef { return claimRef{namespace, name} }

// AddClaim adds a claim (from the snapshot or made from a template) and
// marks its allocated devices.
func (s *State) AddClaim(c *resourceapi.ResourceClaim) {
	s.mutations++
	key := claimKey(c.Namespace, c.Name)
	if _, exists := s.claims[key]; !exists {
		s.claimPos[key] = len(s.claimOrder)
		s.claimOrder = append(s.claimOrder, key)
	}
	s.claims[key] = c
	s.markAllocated(c)
}

// Claim returns a claim by namespace and name.
func (s *State) Claim(namespace, name string) (*resourceapi.ResourceClaim, error) {
	c, ok := s.claims[claimKey(namespace, name)]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, name)
	}
	return c, nil
}

// Claims returns every claim in the order they were added.
func (s *State) Claims() []*resourceapi.ResourceClaim {
	out := make([]*resourceapi.ResourceClaim, 0, len(s.claims))
	for _, k := range s.claimOrder {
		if k != (claimRef{}) {
			out = append(out, s.claims[k])
		}
	}
	return out
}

// Slices returns the slices with DeviceTaintRules applied.
func (s *State) Slices() []*resourceapi.ResourceSlice { return s.slices }

// Classes returns the device classes in snapshot order.
func (s *State) Classes() []*resourceapi.DeviceClass { return s.classList }

// Gates returns the feature gates in force.
func (s *State) Gates() feature.Gates { return s.gates }

// List implements structured.DeviceClassLister.
func (s *State) List() ([]*resourceapi.DeviceClass, error) { return s.classList, nil }

// Get implements structured.DeviceClassLister.
func (s *State) Get(name string) (*resourceapi.DeviceClass, error) {
	c, ok := s.classes[name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "resource.k8s.io", Resource: "deviceclasses"}, name)
	}
	return c, nil
}

var _ structured.DeviceClassLister = (*State)(nil)

// markAllocated records a claim's allocated devices the way the scheduler's
// allocated-devices tracker does: admin-access results are not exclusive,
// results with a share ID are shared allocations with consumed capacity.
func (s *State) markAllocated(c *resourceapi.ResourceClaim) { s.trackAllocated(c, true) }

// trackAllocated records (add) or forgets a claim's allocated devices.
func (s *State) trackAllocated(c *resourceapi.ResourceClaim, add bool) {
	s.mutations++
	if c.Status.Allocation == nil {
		return
	}
	if e := s.exclusiveOf(c.Status.Allocation); e != nil {
		for i, id := range e.ids {
			if add {
				s.allocated.Insert(id)
				s.recordHashedFact(e.refs[i], e.facts[i], e.hashes[i])
			} else {
				s.allocated.Delete(id)
				s.forgetHashedFact(e.refs[i], e.facts[i], e.hashes[i])
			}
		}
		s.refreshDynamic(e.touched)
		return
	}
	// fact records (or forgets) a fact whose hash leaves out the share ID
	// (see below).
	fact := func(ref poolRef, fact, hashed string) {
		if add {
			s.recordHashedFact(ref, fact, factHash(hashed))
		} else {
			s.forgetHashedFact(ref, fact, factHash(hashed))
		}
	}
	var touched []poolRef
	for _, r := range c.Status.Allocation.Devices.Results {
		if ptr.Deref(r.AdminAccess, false) {
			continue
		}
		ref := poolRef{r.Driver, r.Pool}
		if !slices.Contains(touched, ref) {
			touched = append(touched, ref)
		}
		id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
		if s.features.ConsumableCapacity && r.ShareID != nil {
			shared := structured.MakeSharedDeviceID(id, r.ShareID)
			s.indexShare(id, shared, add)
			// The facts' hashes leave out the share ID: the allocator
			// reads a device's shares only as "in use" and their summed
			// capacity (deviceCapacityInUse, AggregatedCapacity), and
			// drasim draws the IDs itself (Allocate), so nodes whose
			// devices hold the same shares under other IDs are
			// equivalent. The facts keep it: two shares of one size are
			// two facts, and a share tracked twice is one.
			fact(ref, "s:"+r.Device+"/"+string(*r.ShareID), "s:"+r.Device)
			if r.ConsumedCapacity != nil {
				consumed := structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity)
				if add {
					s.capacities.Insert(consumed)
				} else {
					s.capacities.Remove(consumed)
				}
				taken := capacityString(r.ConsumedCapacity)
				fact(ref, "c:"+r.Device+"/"+string(*r.ShareID)+":"+taken, "c:"+r.Device+":"+taken)
			}
			s.recount(id)
			continue
		}
		if add {
			s.allocated.Insert(id)
		} else {
			s.allocated.Delete(id)
		}
		fact(ref, "x:"+r.Device, "x:"+r.Device)
	}
	s.refreshDynamic(touched)
}

// indexShare adds a share to (or removes it from) its device's shares.
func (s *State) indexShare(id structured.DeviceID, shared structured.SharedDeviceID, add bool) {
	set := s.sharesOf[id]
	if add {
		if set == nil {
			set = sets.New[structured.SharedDeviceID]()
			s.sharesOf[id] = set
		}
		set.Insert(shared)
		return
	}
	set.Delete(shared)
	s.uncounted.Delete(shared)
	if set.Len() == 0 {
		delete(s.sharesOf, id)
	}
}

// recount keeps uncounted in step with a device whose shares or consumed
// capacity changed.
//
// The allocator asks two things of the shared IDs it is given: whether a
// device has any share (deviceCapacityInUse, asked only of a device with
// no entry in the consumed capacities, and IsDeviceAllocated, which also
// looks at the consumed capacities), and it walks every shared ID of the
// cluster for each such question. Handing it only the shares of the
// devices without a consumed-capacity entry answers every question the
// same (a device with an entry is "in use" before the walk) and makes the
// walk as long as the shares without capacity, usually none, instead of
// every share in the cluster (docs/performance.md).
func (s *State) recount(id structured.DeviceID) {
	_, counted := s.capacities[id]
	for shared := range s.sharesOf[id] {
		if counted {
			s.uncounted.Delete(shared)
		} else {
			s.uncounted.Insert(shared)
		}
	}
}

// exclusiveDevices is what trackAllocated records of an allocation
// result whose devices are all allocated exclusively (no admin access, no
// share): each device's ID, pool and allocation fact (with its hash), and
// the pools in the order first touched.
type exclusiveDevices struct {
	ids     []structured.DeviceID
	refs    []poolRef
	facts   []string
	hashes  []uint64 // the facts' factHash
	touched []poolRef
}

// maxExclusive bounds the cache of exclusive allocations; it starts over
// when full.
const maxExclusive = 1 << 16

// exclusiveOf returns the exclusive devices of an allocation result, nil
// when some result has admin access or a share ID. They are kept by the
// result's pointer: nothing changes an allocation result in place (a claim
// gets a new one or none, see Restore), and the journals of what-if runs
// hand the same result back and forth, so the device IDs (interned
// strings) and facts are made once per result rather than on every
// change and its undo.
func (s *State) exclusiveOf(a *resourceapi.AllocationResult) *exclusiveDevices {
	e, ok := s.exclusive[a]
	if ok {
		return e
	}
	if s.exclusive == nil || len(s.exclusive) >= maxExclusive {
		s.exclusive = map[*resourceapi.AllocationResult]*exclusiveDevices{}
	}
	for _, r := range a.Devices.Results {
		if ptr.Deref(r.AdminAccess, false) || r.ShareID != nil {
			s.exclusive[a] = nil // not exclusive: the same answer next time
			return nil
		}
	}
	e = &exclusiveDevices{}
	for _, r := range a.Devices.Results {
		ref := poolRef{r.Driver, r.Pool}
		if !slices.Contains(e.touched, ref) {
			e.touched = append(e.touched, ref)
		}
		e.ids = append(e.ids, structured.MakeDeviceID(r.Driver, r.Pool, r.Device))
		e.refs = append(e.refs, ref)
		fact := "x:" + r.Device
		e.facts = append(e.facts, fact)
		e.hashes = append(e.hashes, factHash(fact))
	}
	s.exclusive[a] = e
	return e
}

func capacityString(c map[resourceapi.QualifiedName]resource.Quantity) string {
	keys := make([]string, 0, len(c))
	for k, q := range c {
		keys = append(keys, string(k)+"="+q.String())
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// AllocatedState returns the allocated devices for a new allocator. It is
// a view of the live sets, not a copy: the allocator only reads them, and
// drasim never keeps an allocator (nor the view) across an allocation,
// which happens in Reserve, after every Filter of the cycle. Cloning the
// sets for every pod cost more than the rest of PreFilter together.
func (s *State) AllocatedState() structured.AllocatedState {
	st := structured.AllocatedState{
		AllocatedDevices:         s.allocated,
		AllocatedSharedDeviceIDs: s.uncounted,
		AggregatedCapacity:       s.capacities,
	}
	if !s.features.ConsumableCapacity {
		st.AllocatedSharedDeviceIDs = s.noSharedIDs
		st.AggregatedCapacity = s.noCapacities
	}
	return st
}

// Allocate records an allocation result for a claim, as the scheduler's
// Reserve and PreBind do: the claim gets the result, the finalizer, and the
// pod in reservedFor; the devices become allocated.
func (s *State) Allocate(c *resourceapi.ResourceClaim, result *resourceapi.AllocationResult) error {
	s.mutations++
	if c.Status.Allocation != nil {
		return fmt.Errorf("claim %s/%s is already allocated", c.Namespace, c.Name)
	}
	c.Status.Allocation = result.DeepCopy()
	// The allocator draws share IDs at random; drasim derives them from
	// the claim so that the same input gives the same output.
	for i := range c.Status.Allocation.Devices.Results {
		r := &c.Status.Allocation.Devices.Results[i]
		if r.ShareID != nil {
			id := types.UID(kubenames.UID(fmt.Sprintf("share/%s/%s/%d", c.Namespace, c.Name, i)))
			r.ShareID = &id
		}
	}
	if !containsString(c.Finalizers, resourceapi.Finalizer) {
		c.Finalizers = append(c.Finalizers, resourceapi.Finalizer)
	}
	s.markAllocated(c)
	return nil
}

// Reserve adds the pod to the claim's reservedFor, unless it is already there.
func (s *State) Reserve(c *resourceapi.ResourceClaim, pod *v1.Pod) {
	s.mutations++
	for _, r := range c.Status.ReservedFor {
		if r.UID == pod.UID && r.Name == pod.Name {
			return
		}
	}
	c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID})
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// HasDeviceClass reports whether a DeviceClass provides the extended
// resource (noderesources.DRAExtendedResources).
func (s *State) HasDeviceClass(name v1.ResourceName) bool {
	return s.gates["DRAExtendedResource"] && s.extResource[name] != nil
}

// Clone returns an independent copy for what-if runs (fork, try, discard):
// claims are deep-copied, slices and classes are shared read-only.
func (s *State) Clone() *State {
	c := *s
	c.claims = make(map[claimRef]*resourceapi.ResourceClaim, len(s.claims))
	for k, v := range s.claims {
		c.claims[k] = v.DeepCopy()
	}
	c.claimOrder = append([]claimRef(nil), s.claimOrder...)
	c.claimPos = make(map[claimRef]int, len(s.claimPos))
	for k, v := range s.claimPos {
		c.claimPos[k] = v
	}
	c.exclusive = nil // the clone's claims are copies: its own cache
	c.allocated = s.allocated.Clone()
	c.uncounted = s.uncounted.Clone()
	c.sharesOf = make(map[structured.DeviceID]sets.Set[structured.SharedDeviceID], len(s.sharesOf))
	for id, set := range s.sharesOf {
		c.sharesOf[id] = set.Clone()
	}
	c.capacities = s.capacities.Clone()
	// The clone's pools are new objects: its log starts empty.
	c.changedBase = s.changedBase + len(s.changedPools)
	c.changedPools = nil
	c.nodes = make(map[string]*nodePools, len(s.nodes))
	for k, v := range s.nodes {
		cp := *v
		cp.pools = append([]poolRef(nil), v.pools...)
		c.nodes[k] = &cp
	}
	c.nodeSlices = make(map[string][]*resourceapi.ResourceSlice, len(s.nodeSlices))
	for k, v := range s.nodeSlices {
		c.nodeSlices[k] = v
	}
	c.poolNode = make(map[poolRef]string, len(s.poolNode))
	for k, v := range s.poolNode {
		c.poolNode[k] = v
	}
	c.retired = make(map[string][]poolRef, len(s.retired))
	for k, v := range s.retired {
		c.retired[k] = v
	}
	c.poolFacts = make(map[poolRef]*poolFactSet, len(s.poolFacts))
	for k, v := range s.poolFacts {
		c.poolFacts[k] = &poolFactSet{facts: maps.Clone(v.facts), sum: v.sum}
	}
	return &c
}

// AddSlices adds ResourceSlices (e.g. of a node added by a what-if), with
// the DeviceTaintRules given applied.
func (s *State) AddSlices(slices []*resourceapi.ResourceSlice, rules []*resourceapi.DeviceTaintRule) {
	s.mutations++
	if !s.gates["DRADeviceTaintRules"] {
		rules = nil
	}
	added := make([]*resourceapi.ResourceSlice, 0, len(slices))
	for _, sl := range slices {
		added = append(added, applyTaintRules(sl, rules))
	}
	// A fork shares the slice list with its parent: copy before appending.
	s.slices = append(s.slices[:len(s.slices):len(s.slices)], added...)
	s.indexSlices(added)
}

// unmarkAllocated forgets a claim's allocated devices: the inverse of
// markAllocated.
func (s *State) unmarkAllocated(c *resourceapi.ResourceClaim) { s.trackAllocated(c, false) }

// Release does what the resource-claim controller does once a pod is gone
// (deleted, preempted, finished): it takes the pod off the claim's
// reservedFor and, when no consumer is left, deallocates the claim (the
// allocation and the controller's finalizer go, the devices come free).
// It returns the claim as it was before, or nil when nothing changed.
func (s *State) Release(c *resourceapi.ResourceClaim, pod *v1.Pod) *resourceapi.ResourceClaim {
	s.mutations++
	kept := make([]resourceapi.ResourceClaimConsumerReference, 0, len(c.Status.ReservedFor))
	for _, r := range c.Status.ReservedFor {
		if r.Resource == "pods" && r.APIGroup == "" && r.Name == pod.Name && (r.UID == "" || r.UID == pod.UID) {
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) == len(c.Status.ReservedFor) {
		return nil
	}
	before := c.DeepCopy()
	c.Status.ReservedFor = kept
	if len(kept) == 0 && containsString(c.Finalizers, resourceapi.Finalizer) {
		s.unmarkAllocated(c)
		c.Status.Allocation = nil
		c.Finalizers = slices.DeleteFunc(slices.Clone(c.Finalizers), func(f string) bool { return f == resourceapi.Finalizer })
	}
	return before
}

// DeleteClaim removes a claim from the state (as the garbage collector
// removes a claim generated for a pod that is gone), freeing any devices
// it still holds. It returns the claim, or nil when there is none.
func (s *State) DeleteClaim(namespace, name string) *resourceapi.ResourceClaim {
	s.mutations++
	key := claimKey(namespace, name)
	c, ok := s.claims[key]
	if !ok {
		return nil
	}
	s.unmarkAllocated(c)
	delete(s.claims, key)
	s.dropClaim(key)
	return c
}

// unreserve takes the pod off the claim's reservedFor, and nothing else.
func (s *State) unreserve(c *resourceapi.ResourceClaim, pod *v1.Pod) {
	s.mutations++
	c.Status.ReservedFor = slices.DeleteFunc(c.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool {
		return r.Resource == "pods" && r.APIGroup == "" && r.Name == pod.Name && r.UID == pod.UID
	})
	if len(c.Status.ReservedFor) == 0 {
		c.Status.ReservedFor = nil
	}
}

// undoAllocate reverts Allocate: the claim loses its allocation and the
// finalizer, its devices are free again.
func (s *State) undoAllocate(c *resourceapi.ResourceClaim) {
	s.mutations++
	s.unmarkAllocated(c)
	c.Status.Allocation = nil
	c.Finalizers = slices.DeleteFunc(slices.Clone(c.Finalizers), func(f string) bool { return f == resourceapi.Finalizer })
	if len(c.Finalizers) == 0 {
		c.Finalizers = nil
	}
}

// Deallocate clears a claim's allocation, reservations and device status
// and frees its devices, as DynamicResources' PostFilter does, and drops
// the allocation finalizer, as the resource-claim controller then does for
// a claim that is neither allocated nor reserved (what-if edits deallocate
// the claims of removed nodes the same way). It returns the claim as it
// was.
func (s *State) Deallocate(c *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	s.mutations++
	before := c.DeepCopy()
	s.unmarkAllocated(c)
	c.Status.ReservedFor = nil
	c.Status.Allocation = nil
	c.Status.Devices = nil
	c.Finalizers = slices.DeleteFunc(slices.Clone(c.Finalizers), func(f string) bool { return f == resourceapi.Finalizer })
	if len(c.Finalizers) == 0 {
		c.Finalizers = nil
	}
	return before
}
