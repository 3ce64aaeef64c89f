package autoscale

import (
	"fmt"
	"math"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"
)

// BufferOutcome is what one CapacityBuffer holds after the run.
type BufferOutcome struct {
	Name string `json:"name"`
	// Replicas is the number of chunks the buffer asks for (CA's buffer
	// controller: max(replicas, percentage of the scalable object),
	// capped by limits).
	Replicas int `json:"replicas"`
	// Held counts the chunks that fit in the cluster's free capacity
	// after the run: the spare capacity the fleet keeps for them.
	Held int `json:"held"`
	// NodesAdded counts the nodes added in loops whose options held a
	// chunk of this buffer.
	NodesAdded int    `json:"nodesAdded"`
	Shape      string `json:"shape"`
	// ClaimTemplates is set when the chunks use ResourceClaimTemplates.
	ClaimTemplates bool   `json:"claimTemplates,omitempty"`
	Note           string `json:"note,omitempty"`
}

// buffer is a CapacityBuffer's state during the run.
type buffer struct {
	b      *snapshot.CapacityBuffer
	pods   []*v1.Pod
	claims []*resourceapi.ResourceClaim
	out    *BufferOutcome
}

// initBuffers makes each active buffer's virtual pods, as CA's buffer
// controller (translators) and CapacityBufferPodListProcessor do: chunks
// named capacity-buffer-<buffer>-<i>, owned by the buffer.
func (s *scaler) initBuffers() error {
	templates := map[string]*v1.PodTemplate{}
	for _, t := range s.work.PodTemplates {
		templates[t.Namespace+"/"+t.Name] = t
	}
	for _, b := range s.work.CapacityBuffers {
		where := s.work.Where(snapshot.Ref{Kind: "CapacityBuffer", Namespace: b.Namespace, Name: b.Name})
		out := &BufferOutcome{Name: b.Namespace + "/" + b.Name}
		if st := b.Spec.ProvisioningStrategy; st != nil && *st != snapshot.CapacityBufferActiveStrategy {
			out.Note = fmt.Sprintf("provisioning strategy %q: cluster-autoscaler injects no pods for it", *st)
			s.buffers = append(s.buffers, &buffer{b: b, out: out})
			continue
		}
		tmpl, scalable, err := s.bufferTemplate(b, templates)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		n, err := bufferReplicas(b, tmpl, scalable)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		out.Replicas = int(n)
		bf := &buffer{b: b, out: out}
		for i := 1; i <= int(n); i++ {
			p := virtualPod(tmpl, b.Namespace, fmt.Sprintf("capacity-buffer-%s-%d", b.Name, i), "CapacityBuffer", snapshot.CapacityBufferAPIVersion, b.Name, b.UID)
			p.UID = types.UID(fmt.Sprintf("%s-%d", b.UID, i))
			if p.UID == types.UID(fmt.Sprintf("-%d", i)) {
				p.UID = types.UID(fmt.Sprintf("buffer/%s/%s-%d", b.Namespace, b.Name, i))
			}
			p.Annotations["podType"] = "capacityBufferFakePod"
			p.Annotations["cluster-autoscaler.kubernetes.io/safe-to-evict"] = "true"
			for _, c := range p.Spec.ResourceClaims {
				out.ClaimTemplates = out.ClaimTemplates || c.ResourceClaimTemplateName != nil
			}
			if s.opts.ProvReqClaims == ClaimsCorrect {
				bf.claims = append(bf.claims, s.cur.AddVirtualClaims(p)...)
			}
			bf.pods = append(bf.pods, p)
		}
		out.Shape = podShape(tmpl)
		if out.ClaimTemplates && s.opts.ProvReqClaims != ClaimsCorrect {
			out.Note = "cluster-autoscaler's answer: its buffer pods get no claims from their ResourceClaimTemplates, so they never fit and never scale up (as kubernetes/autoscaler issue 10065 for ProvisioningRequests); --provisioning-request-claims=correct shows the capacity they would hold"
		}
		s.buffers = append(s.buffers, bf)
	}
	return nil
}

// bufferTemplate is the pod shape of a chunk: the PodTemplate, or the
// scalable object's pod template (with its replicas for percentage).
func (s *scaler) bufferTemplate(b *snapshot.CapacityBuffer, templates map[string]*v1.PodTemplate) (*v1.PodTemplateSpec, *int32, error) {
	if ref := b.Spec.PodTemplateRef; ref != nil {
		t := templates[b.Namespace+"/"+ref.Name]
		if t == nil {
			return nil, nil, fmt.Errorf("spec.podTemplateRef.name: PodTemplate %q is not in namespace %s", ref.Name, b.Namespace)
		}
		return &t.Template, nil, nil
	}
	ref := b.Spec.ScalableRef
	if ref == nil {
		return nil, nil, fmt.Errorf("spec: one of podTemplateRef and scalableRef is required")
	}
	switch ref.Kind {
	case "Deployment":
		for _, d := range s.work.Deployments {
			if d.Namespace == b.Namespace && d.Name == ref.Name {
				return &d.Spec.Template, replicasOr1(d.Spec.Replicas), nil
			}
		}
	case "StatefulSet":
		for _, d := range s.work.StatefulSets {
			if d.Namespace == b.Namespace && d.Name == ref.Name {
				return &d.Spec.Template, replicasOr1(d.Spec.Replicas), nil
			}
		}
	case "ReplicaSet":
		for _, d := range s.work.ReplicaSets {
			if d.Namespace == b.Namespace && d.Name == ref.Name {
				return &d.Spec.Template, replicasOr1(d.Spec.Replicas), nil
			}
		}
	case "Job":
		for _, d := range s.work.Jobs {
			if d.Namespace == b.Namespace && d.Name == ref.Name {
				n := int32(kube.JobActive(d))
				return &d.Spec.Template, &n, nil
			}
		}
	default:
		return nil, nil, fmt.Errorf("spec.scalableRef.kind: %q is not a kind drasim scales (Deployment, StatefulSet, ReplicaSet, Job)", ref.Kind)
	}
	return nil, nil, fmt.Errorf("spec.scalableRef: %s %q is not in namespace %s", ref.Kind, ref.Name, b.Namespace)
}

func replicasOr1(r *int32) *int32 {
	if r == nil {
		one := int32(1)
		return &one
	}
	return r
}

// bufferReplicas is CA's getBufferNumberOfPods (translators/replicas.go).
func bufferReplicas(b *snapshot.CapacityBuffer, t *v1.PodTemplateSpec, scalable *int32) (int32, error) {
	replicas := int32(-1)
	if b.Spec.Replicas != nil {
		replicas = max(0, *b.Spec.Replicas)
	}
	if b.Spec.Percentage != nil && scalable != nil {
		fromPct := int32(0)
		if *b.Spec.Percentage > 0 && *scalable > 0 {
			fromPct = (*b.Spec.Percentage**scalable + 99) / 100
		}
		replicas = max(replicas, fromPct)
	}
	if b.Spec.Limits != nil {
		req := resourcehelper.PodRequests(&v1.Pod{Spec: t.Spec}, resourcehelper.PodResourcesOptions{})
		limit := int32(math.MaxInt32)
		found := false
		for name, q := range req {
			mv := q.MilliValue()
			if mv <= 0 {
				continue
			}
			if l, ok := b.Spec.Limits[string(name)]; ok {
				if n := int32(l.MilliValue() / mv); n >= 0 {
					found = true
					limit = min(limit, n)
				}
			}
		}
		if !found {
			return 0, fmt.Errorf("spec.limits: no resource of the limits is requested by the pod template")
		}
		if replicas >= 0 {
			return min(replicas, limit), nil
		}
		return limit, nil
	}
	if replicas >= 0 {
		return replicas, nil
	}
	return 0, fmt.Errorf("spec: replicas, percentage and limits are not defined")
}

// podShape sums up a chunk: its requests and claims.
func podShape(t *v1.PodTemplateSpec) string {
	req := resourcehelper.PodRequests(&v1.Pod{Spec: t.Spec}, resourcehelper.PodResourcesOptions{})
	shape := fmt.Sprintf("cpu %s, memory %s", req.Cpu(), req.Memory())
	for _, c := range t.Spec.ResourceClaims {
		switch {
		case c.ResourceClaimTemplateName != nil:
			shape += ", claim template " + *c.ResourceClaimTemplateName
		case c.ResourceClaimName != nil:
			shape += ", claim " + *c.ResourceClaimName
		}
	}
	return shape
}

// refreshBuffers is CA's loop for buffer pods: they join the pending pods
// every loop, and filter-out-schedulable takes those that fit in the
// cluster's free capacity (in order, first fit); the rest wait for a
// scale-up, as pods do. It returns how many chunks the cluster holds.
func (s *scaler) refreshBuffers() (int, error) {
	s.virtual = nil
	if len(s.buffers) == 0 {
		return 0, nil
	}
	s.cur.Fork()
	defer s.cur.Revert()
	e, err := sim.NewEngineOn(s.cur, s.opts.Sim, s.draPlugin)
	if err != nil {
		return 0, err
	}
	k := newChecker(e)
	held := 0
	for _, b := range s.buffers {
		left, err := s.fitExisting(s.ctx, k, b.pods, false)
		if err != nil {
			return 0, err
		}
		b.out.Held = len(b.pods) - len(left)
		held += b.out.Held
		s.virtual = append(s.virtual, left...)
	}
	return held, nil
}

// countBufferNodes credits the nodes of a loop to the buffers whose
// chunks were in the chosen option.
func (s *scaler) countBufferNodes(c *candidate, nodes int) {
	for _, b := range s.buffers {
		for _, p := range c.pods {
			if ownerOf(p) == "CapacityBuffer/"+b.b.Name && p.Namespace == b.b.Namespace {
				b.out.NodesAdded += nodes
				break
			}
		}
	}
}

// finishBuffers writes the outcomes into the plan.
func (s *scaler) finishBuffers() error {
	if _, err := s.refreshBuffers(); err != nil {
		return err
	}
	for _, b := range s.buffers {
		s.plan.Buffers = append(s.plan.Buffers, *b.out)
		s.cur.RemoveVirtualClaims(b.claims)
	}
	s.virtual = nil
	return nil
}
