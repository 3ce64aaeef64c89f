package kubeversion_test

import (
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/kubeversion"
	"github.com/drasim/drasim/sim/load"
	"github.com/google/go-cmp/cmp"
)

// The newest release's table must be exactly the gates drasim had before
// releases were modelled: 1.37 results may not change.
func TestLatestGatesAreDRADefaults(t *testing.T) {
	got := kubeversion.Default().DefaultGates()
	want := map[string]bool(feature.Defaults())
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("1.37 gate defaults differ from feature.Defaults (-want +got):\n%s", diff)
	}
	for _, spec := range []string{"DRAAdminAccess=false", "DRAExtendedResource=false", "DRAResourceClaimDeviceStatus=false", "Nope=true", "DRAPrioritizedList", "DRAPrioritizedList=maybe"} {
		_, wantErr := feature.Parse(spec)
		_, gotErr := kubeversion.Default().ParseGates(spec)
		if wantErr == nil || gotErr == nil || wantErr.Error() != gotErr.Error() {
			t.Errorf("ParseGates(%q) on 1.37: want dra's error %v, got %v", spec, wantErr, gotErr)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "", want: "v1.37.2"},
		{in: "1.34", want: "v1.34.4"},
		{in: "v1.35", want: "v1.35.4"},
		{in: "1.36.1", want: "v1.36.3"},
		{in: "1.33", err: `unknown Kubernetes version "1.33": drasim models 1.34, 1.35, 1.36, 1.37`},
		{in: "latest", err: `unknown Kubernetes version "latest"`},
	} {
		r, err := kubeversion.Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q): want error %q, got %v", tc.in, tc.err, err)
			}
			continue
		}
		if err != nil || r.String() != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %s", tc.in, r, err, tc.want)
		}
	}
}

func TestGates(t *testing.T) {
	for _, tc := range []struct {
		name, version, spec string
		want                map[string]bool // a subset of the result
		err                 string
	}{
		{name: "1.34 defaults", version: "1.34", want: map[string]bool{"DRAPartitionableDevices": false, "DRAConsumableCapacity": false, "DRADeviceTaints": false, "DRADeviceTaintRules": false, "DRAExtendedResource": false, "DRAPrioritizedList": true}},
		{name: "1.34 taint rules follow DRADeviceTaints", version: "1.34", spec: "DRADeviceTaints=true", want: map[string]bool{"DRADeviceTaints": true, "DRADeviceTaintRules": true}},
		{name: "1.34 has no DRADeviceTaintRules gate", version: "1.34", spec: "DRADeviceTaintRules=true", err: "feature gate DRADeviceTaintRules does not exist in Kubernetes v1.34 (it came in v1.35)"},
		{name: "1.35 has no derived attributes", version: "1.35", spec: "DRADerivedAttributes=true", err: "feature gate DRADerivedAttributes does not exist in Kubernetes v1.35 (it came in v1.37)"},
		{name: "1.35 gangs are not modelled", version: "1.35", spec: "GenericWorkload=true", err: "feature gate GenericWorkload of Kubernetes v1.35: drasim models gang scheduling"},
		{name: "1.35 gang gate may stay off", version: "1.35", spec: "GenericWorkload=false", want: map[string]bool{"GenericWorkload": false}},
		{name: "1.36 defaults", version: "1.36", want: map[string]bool{"DRAPartitionableDevices": true, "DRAConsumableCapacity": true, "DRADeviceTaints": true, "DRADeviceTaintRules": false, "DRAExtendedResource": true, "DRADeviceBindingConditions": true}},
		{name: "1.36 locks admin access", version: "1.36", spec: "DRAAdminAccess=false", err: "feature gate DRAAdminAccess is locked to true in Kubernetes v1.36"},
		{name: "1.35 admin access is beta", version: "1.35", spec: "DRAAdminAccess=false", want: map[string]bool{"DRAAdminAccess": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := kubeversion.MustGet(tc.version).ParseGates(tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("want error containing %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if g[k] != v {
					t.Errorf("%s: want %v, got %v", k, v, g[k])
				}
			}
		})
	}
}

func TestGatesString(t *testing.T) {
	r := kubeversion.MustGet("1.35")
	g, err := r.ParseGates("DRAPartitionableDevices=true,DRAPrioritizedList=true")
	if err != nil {
		t.Fatal(err)
	}
	// Only what differs from 1.35's own defaults.
	if got, want := r.GatesString(g), "DRAPartitionableDevices=true"; got != want {
		t.Errorf("GatesString = %q, want %q", got, want)
	}
}

const taintRule = `apiVersion: resource.k8s.io/%s
kind: DeviceTaintRule
metadata:
  name: maintenance
spec:
  taint:
    key: maintenance
    effect: NoSchedule
`

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, version, input, err string
	}{
		{name: "1.37 takes v1", version: "1.37", input: strings.Replace(taintRule, "%s", "v1", 1)},
		{name: "1.36 takes v1beta2", version: "1.36", input: strings.Replace(taintRule, "%s", "v1beta2", 1)},
		{name: "1.36 refuses v1", version: "1.36", input: strings.Replace(taintRule, "%s", "v1", 1),
			err: `in.yaml:1 (document 1): DeviceTaintRule "maintenance": apiVersion: Kubernetes v1.36 does not serve resource.k8s.io/v1 (it serves resource.k8s.io/v1beta2, v1alpha3)`},
		{name: "1.35 refuses v1beta2", version: "1.35", input: strings.Replace(taintRule, "%s", "v1beta2", 1),
			err: `DeviceTaintRule "maintenance": apiVersion: Kubernetes v1.35 does not serve resource.k8s.io/v1beta2 (it serves resource.k8s.io/v1alpha3)`},
		{name: "1.34 refuses scheduling groups", version: "1.34", input: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  schedulingGroup: {podGroupName: g}
  containers: [{name: c, image: i}]
`, err: `Pod "default/p": spec.schedulingGroup: Kubernetes v1.34 has no such field (it came in v1.36)`},
		{name: "1.36 names its own gang API", version: "1.36", input: `apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: g}
`, err: `1 PodGroup object(s): apiVersion: scheduling.k8s.io/v1alpha2 is served by Kubernetes v1.36, but drasim models gang scheduling with the scheduling.k8s.io/v1beta1 API of Kubernetes 1.37 only`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := load.LoadBytes("in.yaml", []byte(tc.input), load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = kubeversion.MustGet(tc.version).Check(res.Snapshot)
			if tc.err == "" {
				if err != nil {
					t.Fatalf("want no problem, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("want a problem containing\n  %s\ngot\n  %v", tc.err, err)
			}
		})
	}
}

const partitionedSlice = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  sharedCounters:
  - name: mem
    counters: {memory: {value: 40Gi}}
  devices:
  - name: gpu-0
    allowMultipleAllocations: true
    taints: [{key: k, effect: NoSchedule}]
    consumesCounters:
    - counterSet: mem
      counters: {memory: {value: 40Gi}}
`

// TestDropDisabledFields: with 1.34's defaults the API server drops the
// fields of partitionable devices, consumable capacity and device taints
// from a slice it creates; 1.36's defaults keep them. The loaded object
// itself is never changed.
func TestDropDisabledFields(t *testing.T) {
	res, err := load.LoadBytes("in.yaml", []byte(partitionedSlice), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	orig := res.Snapshot.ResourceSlices[0]
	if got, err := kubeversion.MustGet("1.36").DropDisabledFields(res.Snapshot, kubeversion.MustGet("1.36").DefaultGates()); err != nil || got != res.Snapshot {
		t.Errorf("1.36's defaults: want the snapshot unchanged, got a copy or %v", err)
	}
	r134 := kubeversion.MustGet("1.34")
	got, err := r134.DropDisabledFields(res.Snapshot, r134.DefaultGates())
	if err != nil {
		t.Fatalf("1.34's defaults: want the slice kept without its partitions, got %v", err)
	}
	sl := got.ResourceSlices[0]
	if sl == orig {
		t.Fatal("1.34's defaults: the slice was not copied")
	}
	d := sl.Spec.Devices[0]
	if len(sl.Spec.SharedCounters) != 0 || len(d.ConsumesCounters) != 0 || d.AllowMultipleAllocations != nil || len(d.Taints) != 0 {
		t.Errorf("1.34's defaults: want counters, multiple allocations and taints dropped, got %+v / %+v", sl.Spec.SharedCounters, d)
	}
	if o := orig.Spec.Devices[0]; len(orig.Spec.SharedCounters) != 1 || len(o.ConsumesCounters) != 1 || o.AllowMultipleAllocations == nil || len(o.Taints) != 1 {
		t.Errorf("the loaded slice was changed: %+v", orig.Spec)
	}
}

const distinctTemplate = `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: spread, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpus
        exactly: {deviceClassName: gpu, count: 2}
      constraints:
      - matchAttribute: gpu.example.com/model
      - distinctAttribute: resource.kubernetes.io/pcieRoot
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: per-device}
spec:
  driver: gpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  perDeviceNodeSelection: true
  devices:
  - name: gpu-0
    nodeName: n1
`

// TestDropDisabledFieldsRefuses: the API server validates what is left
// after dropping; 1.34's and 1.35's refuse a constraint that had only
// distinctAttribute and a slice that chose its nodes per device (as
// kube-apiserver v1.37.2 emulating 1.34 did with 02-constraints), while
// 1.36's keep both. drasim must refuse them too, naming file, object and
// field, instead of replaying objects the release never stored.
func TestDropDisabledFieldsRefuses(t *testing.T) {
	res, err := load.LoadBytes("in.yaml", []byte(distinctTemplate), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubeversion.MustGet("1.36").DropDisabledFields(res.Snapshot, kubeversion.MustGet("1.36").DefaultGates()); err != nil {
		t.Errorf("1.36: want both objects taken, got %v", err)
	}
	for _, v := range []string{"1.34", "1.35"} {
		r := kubeversion.MustGet(v)
		got, err := r.DropDisabledFields(res.Snapshot, r.DefaultGates())
		want := "--kube-version " + v + ": the input holds 2 object(s) that Kubernetes v" + v + " would not take as written:\n" +
			"  in.yaml:1 (document 1): ResourceClaimTemplate \"ml/spread\": spec.spec.devices.constraints[1].matchAttribute: Required value: Kubernetes v" + v +
			" drops distinctAttribute (feature gate DRAConsumableCapacity is off) and then refuses the constraint, which names no attribute\n" +
			"  in.yaml:14 (document 2): ResourceSlice \"per-device\": spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required: Kubernetes v" + v +
			" drops perDeviceNodeSelection (feature gate DRAPartitionableDevices is off) and then refuses the slice"
		if err == nil || got != nil {
			t.Fatalf("%s: want the template and the slice refused, got %v, %v", v, got, err)
		}
		if diff := cmp.Diff(want, err.Error()); diff != "" {
			t.Errorf("%s: error (-want +got):\n%s", v, diff)
		}
	}
	// With the gates on, 1.35 keeps the fields and takes the objects.
	r := kubeversion.MustGet("1.35")
	g, err := r.ParseGates("DRAConsumableCapacity=true,DRAPartitionableDevices=true")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.DropDisabledFields(res.Snapshot, g); err != nil {
		t.Errorf("1.35 with the gates on: want both objects taken, got %v", err)
	}
}
