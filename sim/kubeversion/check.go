package kubeversion

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
)

// Problem is an object of the snapshot that the release would not know or
// that drasim does not model for it.
type Problem struct {
	Source snapshot.Source
	Object string // `DeviceTaintRule "gpu-maintenance"`
	Field  string // "apiVersion", "spec.schedulingGroup"
	Msg    string
}

func (p Problem) Error() string {
	var b strings.Builder
	if p.Source.File != "" {
		b.WriteString(p.Source.String())
		b.WriteString(": ")
	}
	b.WriteString(p.Object)
	b.WriteString(": ")
	b.WriteString(p.Field)
	b.WriteString(": ")
	b.WriteString(p.Msg)
	return b.String()
}

// Problems are all of a snapshot's problems for one release; as an error
// they are listed one per line.
type Problems struct {
	Release string
	List    []Problem
}

func (ps *Problems) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--kube-version %s: the input holds %d object(s) that Kubernetes v%s would not take as written:", ps.Release, len(ps.List), ps.Release)
	for _, p := range ps.List {
		b.WriteString("\n  ")
		b.WriteString(p.Error())
	}
	return b.String()
}

// Check lists the objects of the snapshot that the release would not
// serve as written: a kind in an API version the release does not serve
// (a DeviceTaintRule as resource.k8s.io/v1 on 1.36), a gang API that
// drasim does not model for the release, and pod fields the release does
// not have (spec.schedulingGroup before 1.36). The newest release has
// none. The order is the snapshot's.
func (r *Release) Check(s *snapshot.Snapshot) error {
	var ps []Problem
	written := func(kind, name, namespace string) (snapshot.Source, string) {
		src := s.Sources[snapshot.Ref{Kind: kind, Namespace: namespace, Name: name}]
		return src, s.Written[src]
	}
	for _, o := range s.DeviceTaintRules {
		src, av := written("DeviceTaintRule", o.Name, "")
		ps = r.checkKind(ps, src, DeviceTaintRule, fmt.Sprintf("DeviceTaintRule %q", o.Name), av)
	}
	for _, o := range s.Workloads {
		src, av := written("Workload", o.Name, o.Namespace)
		ps = r.checkKind(ps, src, Workload, fmt.Sprintf("Workload %q", o.Namespace+"/"+o.Name), av)
	}
	for _, o := range s.PodGroups {
		src, av := written("PodGroup", o.Name, o.Namespace)
		ps = r.checkKind(ps, src, PodGroup, fmt.Sprintf("PodGroup %q", o.Namespace+"/"+o.Name), av)
	}
	// 1.36 has the field; with GenericWorkload off, as drasim holds it
	// there, the API server drops it, and so does drasim (sim/cluster).
	if !r.AtLeast("1.36") {
		for _, p := range s.Pods {
			if p.Spec.SchedulingGroup == nil {
				continue
			}
			msg := fmt.Sprintf("Kubernetes v%s has no such field (it came in v1.36)", r.Name)
			src := s.Sources[snapshot.Ref{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}]
			ps = append(ps, Problem{Source: src, Object: fmt.Sprintf("Pod %q", p.Namespace+"/"+p.Name), Field: "spec.schedulingGroup", Msg: msg})
		}
	}
	// Kinds the loader skipped (versions drasim does not read) that the
	// release serves: the user meant them, and drasim would silently
	// simulate without them.
	var skipped []string
	for key := range s.Skipped {
		skipped = append(skipped, key)
	}
	sort.Strings(skipped)
	for _, key := range skipped {
		i := strings.LastIndex(key, "/")
		apiVersion, kind := key[:i], key[i+1:]
		group, version, _ := strings.Cut(apiVersion, "/")
		if why, ok := r.Unmodeled[apiVersion+"/"+kind]; ok && slices.Contains(r.Served[group+"/"+kind], version) {
			ps = append(ps, Problem{Object: fmt.Sprintf("%d %s object(s)", s.Skipped[key], kind), Field: "apiVersion",
				Msg: fmt.Sprintf("%s is served by Kubernetes v%s, but %s", apiVersion, r.Name, why)})
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return &Problems{Release: r.Name, List: ps}
}

// checkKind adds a problem when the release does not serve the kind in the
// version it was written in.
func (r *Release) checkKind(ps []Problem, src snapshot.Source, kind, object, apiVersion string) []Problem {
	if apiVersion == "" {
		return ps // not read from a file (made by drasim or a test)
	}
	_, version, _ := strings.Cut(apiVersion, "/")
	served := r.Served[kind]
	if why, ok := r.Unmodeled[apiVersion+"/"+kind[strings.Index(kind, "/")+1:]]; ok && slices.Contains(served, version) {
		return append(ps, Problem{Source: src, Object: object, Field: "apiVersion", Msg: fmt.Sprintf("%s is served by Kubernetes v%s, but %s", apiVersion, r.Name, why)})
	}
	if slices.Contains(served, version) {
		return ps
	}
	msg := fmt.Sprintf("Kubernetes v%s does not serve %s", r.Name, apiVersion)
	if len(served) == 0 {
		msg = fmt.Sprintf("Kubernetes v%s has no %s kind (it came in %s)", r.Name, kind, r.firstServing(kind))
	} else {
		msg += fmt.Sprintf(" (it serves %s/%s)", kind[:strings.Index(kind, "/")], strings.Join(served, ", "))
	}
	return append(ps, Problem{Source: src, Object: object, Field: "apiVersion", Msg: msg})
}

func (r *Release) firstServing(kind string) string {
	for _, x := range releases {
		if len(x.Served[kind]) > 0 {
			return "v" + x.Name
		}
	}
	return "a later release"
}
