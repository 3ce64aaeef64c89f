package capture_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/capture"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
)

// outcome is a pod's fate in a replay, names mapped to the anonymized
// ones where asked.
type outcome struct {
	Phase, Node, Message string
	Devices              []string
}

func outcomes(r *result.Result, podName, nodeName, pool func(string) string) map[string]outcome {
	out := map[string]outcome{}
	for _, p := range r.Pods {
		o := outcome{Phase: p.Phase, Node: nodeName(p.Node), Message: p.Message}
		if p.Reason == result.ReasonSchedulerError {
			// The allocator's error quotes claim and device paths, whose
			// names change; the reason is what must stay.
			o.Message = p.Reason
		}
		for _, c := range p.Claims {
			for _, d := range c.Devices {
				o.Devices = append(o.Devices, d.Driver+"/"+pool(d.Pool)+"/"+d.Device)
			}
		}
		out[podName(p.Key())] = o
	}
	return out
}

func loadAndSimulate(t *testing.T, s *snapshot.Snapshot) *result.Result {
	t.Helper()
	// Admitted: Anonymize renames the Namespace label
	// resource.kubernetes.io/admin-access, so an anonymized capture with
	// admin-access claims (scenario 04) is one the API server would
	// refuse; the decisions are what this test compares.
	run, err := sim.Simulate(context.Background(), s, sim.Options{Parallelism: 1, Admitted: true})
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	return run.Result
}

// writeAndLoad writes a snapshot as capture writes it and loads it back.
func writeAndLoad(t *testing.T, s *snapshot.Snapshot) (*snapshot.Snapshot, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := cluster.WriteList(&b, s); err != nil {
		t.Fatalf("WriteList: %v", err)
	}
	res, err := load.LoadBytes("capture.yaml", b.Bytes(), load.Options{KeepControllers: true})
	if err != nil {
		t.Fatalf("loading the written list: %v\n%s", err, b.String())
	}
	return res.Snapshot, b.Bytes()
}

// TestAnonymizeKeepsDecisions: for every scenario, the anonymized
// snapshot replays to the same decisions, name for name through the
// mapping (nodes, pods, pools, devices, kube's messages); no node, pod or
// namespace name of the input is left in the output; the same input gives
// the same bytes.
func TestAnonymizeKeepsDecisions(t *testing.T) {
	files, err := filepath.Glob("../../scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("scenarios: %v (%d files)", err, len(files))
	}
	files = append(files, "../whatif/testdata/cluster.yaml")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			res, err := load.Load([]string{file}, load.Options{KeepControllers: true})
			if err != nil {
				t.Fatalf("loading: %v", err)
			}
			// What capture writes is loaded again, workloads expanded then.
			orig, _ := writeAndLoad(t, res.Snapshot)
			anonSrc, _ := writeAndLoad(t, res.Snapshot)
			mapping := capture.Anonymize(anonSrc)
			anon, data := writeAndLoad(t, anonSrc)
			again, _ := writeAndLoad(t, res.Snapshot)
			capture.Anonymize(again)
			if _, data2 := writeAndLoad(t, again); !bytes.Equal(data, data2) {
				t.Errorf("anonymizing twice gave different bytes")
			}

			want := expandAndSimulate(t, orig)
			got := expandAndSimulate(t, anon)
			id := func(s string) string { return s }
			node := func(n string) string {
				if v, ok := mapping["Node"][n]; ok {
					return v
				}
				return n
			}
			podName := func(k string) string {
				ns, _, _ := strings.Cut(k, "/")
				newNS := ns
				if v, ok := mapping["Namespace"][ns]; ok {
					newNS = v
				}
				if v, ok := mapping["Pod"][k]; ok {
					return newNS + "/" + v
				}
				return "generated " + k
			}
			if diff := cmp.Diff(pick(outcomes(want, podName, node, node)), pick(outcomes(got, id, id, id))); diff != "" {
				t.Errorf("decisions after anonymizing (-original, mapped +anonymized):\n%s", diff)
			}
			// Names of the input left in the output (UIDs aside: the
			// scenarios' are made up of names, a cluster's are random).
			var kept []string
			for _, line := range strings.Split(string(data), "\n") {
				if !strings.Contains(line, "uid:") {
					kept = append(kept, line)
				}
			}
			text := strings.Join(kept, "\n")
			// Device and PriorityClass names are kept (they say what a
			// device or a priority is); a pod may share such a name.
			keptOnPurpose := map[string]bool{}
			for _, sl := range res.Snapshot.ResourceSlices {
				for _, d := range sl.Spec.Devices {
					keptOnPurpose[d.Name] = true
				}
			}
			for _, pc := range res.Snapshot.PriorityClasses {
				keptOnPurpose[pc.Name] = true
			}
			for _, kind := range []string{"Node", "Pod", "Namespace"} {
				newNames := map[string]bool{}
				for _, v := range mapping[kind] {
					newNames[v] = true
				}
				for old := range mapping[kind] {
					name := old
					if _, n, ok := strings.Cut(old, "/"); ok {
						name = n
					}
					if len(name) > 3 && !newNames[name] && !keptOnPurpose[name] && containsWord(text, name) {
						t.Errorf("%s name %q is still in the anonymized snapshot", kind, name)
					}
				}
			}
		})
	}
}

// pick drops pods the loader made (their names come from controllers and
// are not in the mapping); they are compared through the rest.
func pick(m map[string]outcome) map[string]outcome {
	out := map[string]outcome{}
	for k, v := range m {
		if !strings.HasPrefix(k, "generated ") {
			out[k] = v
		}
	}
	return out
}

func expandAndSimulate(t *testing.T, s *snapshot.Snapshot) *result.Result {
	t.Helper()
	if _, err := kube.Expand(s); err != nil {
		t.Fatalf("Expand: %v", err)
	}
	return loadAndSimulate(t, s)
}

// containsWord reports whether name appears in text as a whole name (not
// as part of a longer name such as pdb-1 for db-1).
func containsWord(text, name string) bool {
	isNameChar := func(b byte) bool {
		return b == '-' || b == '.' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !isNameChar(text[j-1])) && (end == len(text) || !isNameChar(text[end])) {
			return true
		}
		i = j + 1
	}
}
