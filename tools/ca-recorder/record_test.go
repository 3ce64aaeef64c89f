package carecorder

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/drasim/drasim/internal/caoracle"
	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakecloudprovider "sigs.k8s.io/cluster-autoscaler/pkg/cloudprovider/test"
	"sigs.k8s.io/cluster-autoscaler/pkg/config"
	"sigs.k8s.io/cluster-autoscaler/pkg/config/flags"
	"sigs.k8s.io/cluster-autoscaler/pkg/core"
	"sigs.k8s.io/cluster-autoscaler/pkg/simulator/framework"
	"sigs.k8s.io/cluster-autoscaler/pkg/test/integration"
	synctestutils "sigs.k8s.io/cluster-autoscaler/pkg/test/integration/synctest"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"
)

var (
	casesFile = flag.String("cases", "", "the cases file (sim/autoscale/testdata/ca/cases.yaml)")
	scenDir   = flag.String("scenarios", "", "the scenario directory (scenarios/autoscale)")
	outDir    = flag.String("out", "", "where to write <case>.json (default: the cases file's directory)")
	only      = flag.String("only", "", "record only these cases (comma-separated names)")
	attempts  = flag.Int("attempts", 2, "record every run this many times; distinct outcomes are kept as variants")
	caCommit  = flag.String("ca-commit", "unknown", "the cluster-autoscaler commit, for the recordings")
	k8s       = flag.String("k8s", "v1.37.2", "the k8s.io module version CA was built with, for the recordings")
)

// step is the time between two CA loops: long enough for nodes added in
// one loop to be Ready and stable (CA then takes them as templates, as in
// a real cluster where the next scale-up comes minutes later).
const step = 2 * time.Minute

// TestRecord records every case of -cases: for each expander, CA's
// production loop runs until it stops scaling up, -attempts times.
func TestRecord(t *testing.T) {
	if *casesFile == "" || *scenDir == "" {
		t.Skip("set -cases and -scenarios (see README.md)")
	}
	// The harness's controller-runtime manager logs through its own
	// logger, which nothing else sets.
	crlog.SetLogger(logr.Discard())
	cases, err := caoracle.ReadCases(*casesFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := *outDir
	if dir == "" {
		dir = filepath.Dir(*casesFile)
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	for _, c := range cases {
		if len(want) > 0 && !want[c.Name] {
			continue
		}
		rec := &caoracle.Recording{Case: c, CA: caoracle.Source{Commit: *caCommit, Kubernetes: *k8s}}
		for _, e := range c.ExpanderList() {
			run := caoracle.Run{Expander: e, Seed: caoracle.DefaultSeed, Attempts: *attempts}
			for i := 0; i < *attempts; i++ {
				var out caoracle.Outcome
				t.Run(fmt.Sprintf("%s/%s/%d", c.Name, e, i+1), func(t *testing.T) {
					out = recordOnce(t, c, e, run.Seed)
				})
				if t.Failed() {
					t.FailNow()
				}
				if !seen(run.Variants, out) {
					run.Variants = append(run.Variants, out)
				}
			}
			rec.Runs = append(rec.Runs, run)
		}
		if err := caoracle.WriteRecording(caoracle.Path(dir, c.Name), rec); err != nil {
			t.Fatal(err)
		}
	}
}

func seen(vs []caoracle.Outcome, o caoracle.Outcome) bool {
	for _, v := range vs {
		if reflect.DeepEqual(v, o) {
			return true
		}
	}
	return false
}

// caOptions are CA's options from its own command-line flags (production
// defaults), with the case's limits, the expander, scale-down off (only
// scale-up is recorded) and one predicate worker (the estimator's first
// fit does not depend on it; it keeps the logs in order).
func caOptions(t *testing.T, c caoracle.Case, expanderName string) config.AutoscalingOptions {
	var f flags.AutoscalingFlags
	fs := pflag.NewFlagSet("cluster-autoscaler", pflag.ContinueOnError)
	f.AddFlags(fs)
	args := []string{
		"--expander=" + expanderName,
		"--scale-down-enabled=false",
		"--predicate-parallelism=1",
		"--max-nodes-total=" + strconv.Itoa(c.MaxNodesTotal),
	}
	if c.MaxNodesPerScaleUp > 0 {
		args = append(args, "--max-nodes-per-scaleup="+strconv.Itoa(c.MaxNodesPerScaleUp))
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	opts, err := f.Options()
	if err != nil {
		t.Fatal(err)
	}
	opts.ClusterName = "drasim-ca-recorder"
	return opts
}

// recordOnce runs CA's loop on one case with one expander.
func recordOnce(t *testing.T, c caoracle.Case, expanderName string, seed int64) caoracle.Outcome {
	opts := caOptions(t, c, expanderName)
	// Build the autoscaler with a harmless expander: the priority
	// expander of CA's factory starts a reflector on the REST client the
	// fake clientset does not have. The strategy is replaced below.
	buildOpts := opts
	buildOpts.ExpanderNames = "least-waste"
	prio, err := priorityConfigMap(filepath.Join(*scenDir, c.PrioritiesFile()), opts.ConfigNamespace)
	if err != nil {
		t.Fatal(err)
	}
	infra := integration.SetupInfrastructure(t)
	fakes := infra.Fakes
	out := caoracle.Outcome{Loops: []caoracle.Loop{}}
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer synctestutils.TearDown(cancel)
		// CA's random expander draws from math/rand's global source;
		// seeding it (with godebug randseednop=0, see go.mod) is the only
		// way to make its picks repeatable.
		rand.Seed(seed)

		scen, err := LoadScenario(filepath.Join(*scenDir, c.Scenario), time.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		populate(t, fakes, scen, prio)
		if len(scen.Autoscaling.ProvReqs) > 0 {
			buildOpts.ProvisioningRequestEnabled = true
		}
		populateAutoscaling(t, ctx, fakes, scen)
		if _, err := Schedule(ctx, fakes.KubeClient, scen.Order, seed); err != nil {
			t.Fatal(err)
		}
		configMaps := fakes.InformerFactory.Core().V1().ConfigMaps()
		configMaps.Informer() // started and synced by Build
		prov := newProvider(fakes.CloudProvider, scen)

		a, _, err := integration.DefaultAutoscalingBuilder(buildOpts, infra).WithCloudProvider(prov).Build(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sa := a.(*core.StaticAutoscaler)
		sa.ExpanderNames = expanderName
		lister := configMaps.Lister().ConfigMaps(opts.ConfigNamespace)
		strategy, err := Strategy(expanderName, prov, &sa.AutoscalingKubeClients, lister)
		if err != nil {
			t.Fatal(err)
		}
		filter, err := Filter(expanderName, prov, &sa.AutoscalingKubeClients, lister)
		if err != nil {
			t.Fatal(err)
		}
		rs := &recordingStrategy{inner: strategy, filter: filter}
		sa.ExpanderStrategy = rs
		installBuffers(t, ctx, fakes, sa, scen)

		known := map[string]bool{}
		for _, n := range fakes.K8s.Nodes().Items {
			known[n.Name] = true
		}
		idle := 0
		for len(out.Loops) < c.Loops() && idle < 2 {
			before := sizes(prov)
			asked := len(rs.decisions)
			if err := synctestutils.RunOnceAfter(t, a, step); err != nil {
				t.Fatalf("RunOnce: %v", err)
			}
			after := sizes(prov)
			if reflect.DeepEqual(before, after) {
				idle++
				continue
			}
			idle = 0
			loop := caoracle.Loop{Sizes: after, Added: []caoracle.GroupSize{}}
			for i := range after {
				if d := after[i].Nodes - before[i].Nodes; d != 0 {
					loop.Added = append(loop.Added, caoracle.GroupSize{Group: after[i].Group, Nodes: d})
				}
			}
			if len(rs.decisions) != asked+1 {
				t.Fatalf("loop %d: the sizes changed after %d expander decisions; want one", len(out.Loops)+1, len(rs.decisions)-asked)
			}
			d := rs.decisions[len(rs.decisions)-1]
			loop.Options, loop.Kept, loop.Chosen = d.options, append([]string{}, d.kept...), d.chosen
			out.Loops = append(out.Loops, loop)
			provisionNewNodes(t, fakes, scen, prov, known)
			if _, err := Schedule(ctx, fakes.KubeClient, scen.Order, seed); err != nil {
				t.Fatal(err)
			}
		}
		out.Final = sizes(prov)
		out.ProvisioningRequests = provReqConditions(t, ctx, fakes, scen)
	})
	return out
}

// populate puts the scenario into the fakes: the cluster's objects into the
// clientset, the node groups (with their existing nodes) into the cloud
// provider, the priority ConfigMap.
func populate(t *testing.T, fakes *integration.FakeSet, s *Scenario, prio *v1.ConfigMap) {
	ctx := context.Background()
	client := fakes.KubeClient
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	inGroup := map[string]bool{}
	for _, g := range s.Groups {
		opts := []fakecloudprovider.NodeGroupOption{fakecloudprovider.WithNGSize(g.MinSize, g.MaxSize)}
		for _, n := range g.Nodes {
			opts = append(opts, fakecloudprovider.WithNode(n))
			inGroup[n.Name] = true
		}
		var pods []*framework.PodInfo
		for _, p := range g.Pods {
			pods = append(pods, framework.NewPodInfo(p, nil))
		}
		opts = append(opts, fakecloudprovider.WithTemplate(framework.NewNodeInfo(g.Template, g.Slices, pods...)))
		fakes.CloudProvider.AddNodeGroup(g.Name, opts...)
	}
	for _, n := range s.Nodes {
		if !inGroup[n.Name] {
			_, err := client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
			must(err)
		}
	}
	for _, c := range s.Classes {
		_, err := client.ResourceV1().DeviceClasses().Create(ctx, c, metav1.CreateOptions{})
		must(err)
	}
	for _, sl := range s.Slices {
		_, err := client.ResourceV1().ResourceSlices().Create(ctx, sl, metav1.CreateOptions{})
		must(err)
	}
	for _, c := range s.Claims {
		_, err := client.ResourceV1().ResourceClaims(c.Namespace).Create(ctx, c, metav1.CreateOptions{})
		must(err)
	}
	for _, ds := range s.DaemonSets {
		_, err := client.AppsV1().DaemonSets(ds.Namespace).Create(ctx, ds, metav1.CreateOptions{})
		must(err)
	}
	for _, p := range s.Pods {
		_, err := client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		must(err)
	}
	_, err := client.CoreV1().ConfigMaps(prio.Namespace).Create(ctx, prio, metav1.CreateOptions{})
	must(err)
}

// provisionNewNodes does the cluster's part for the nodes the cloud
// provider made in the last loop (Scenario.Provision).
func provisionNewNodes(t *testing.T, fakes *integration.FakeSet, s *Scenario, prov *provider, known map[string]bool) {
	ctx := context.Background()
	client := fakes.KubeClient
	for _, n := range fakes.K8s.Nodes().Items {
		if known[n.Name] {
			continue
		}
		known[n.Name] = true
		ng, err := prov.NodeGroupForNode(&n)
		if err != nil || ng == nil {
			t.Fatalf("new node %s: no node group (%v)", n.Name, err)
		}
		node, slices, pods := s.Provision(s.Group(ng.Id()), &n)
		if _, err := client.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, sl := range slices {
			if _, err := client.ResourceV1().ResourceSlices().Create(ctx, sl, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range pods {
			if _, err := client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// sizes are the target sizes of every group, by name.
func sizes(p *provider) []caoracle.GroupSize {
	var out []caoracle.GroupSize
	for _, g := range p.NodeGroups() {
		n, _ := g.TargetSize()
		out = append(out, caoracle.GroupSize{Group: g.Id(), Nodes: n})
	}
	return out
}

// priorityConfigMap reads the priority expander's ConfigMap as drasim
// does: a ConfigMap, its data, or the priorities map alone.
func priorityConfigMap(path, namespace string) (*v1.ConfigMap, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cm := &v1.ConfigMap{}
	var probe struct {
		Kind       string  `json:"kind"`
		Priorities *string `json:"priorities"`
	}
	if err := yaml.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case probe.Kind == "ConfigMap":
		if err := yaml.Unmarshal(data, cm); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	case probe.Priorities != nil:
		cm.Data = map[string]string{"priorities": *probe.Priorities}
	default:
		cm.Data = map[string]string{"priorities": string(data)}
	}
	cm.Name = "cluster-autoscaler-priority-expander"
	cm.Namespace = namespace
	return cm, nil
}
