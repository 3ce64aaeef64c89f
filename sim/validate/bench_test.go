package validate

import (
	"fmt"
	"testing"

	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// benchSnapshot builds a cluster of nodes x gpus devices, a few classes and
// one pending pod per node, directly (no YAML), so that the benchmark
// measures Validate alone.
func benchSnapshot(nodes, gpus int) *snapshot.Snapshot {
	s := snapshot.New()
	for _, model := range []string{"a100", "h100", "b200"} {
		s.DeviceClasses = append(s.DeviceClasses, &resourceapi.DeviceClass{
			ObjectMeta: metav1.ObjectMeta{Name: model},
			Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
				Expression: fmt.Sprintf(`device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == %q`, model),
			}}}},
		})
	}
	s.ResourceClaimTemplates = append(s.ResourceClaimTemplates, &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "one-gpu", Namespace: "default"},
		Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{
				DeviceClassName: "h100", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}},
		}}},
	})
	for n := range nodes {
		name := fmt.Sprintf("node-%d", n)
		s.Nodes = append(s.Nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
		slice := &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-gpu"},
			Spec: resourceapi.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: ptr.To(name),
				Pool: resourceapi.ResourcePool{Name: name, ResourceSliceCount: 1}},
		}
		for g := range gpus {
			model := []string{"a100", "h100"}[n%2]
			slice.Spec.Devices = append(slice.Spec.Devices, resourceapi.Device{
				Name:       fmt.Sprintf("gpu-%d", g),
				Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: ptr.To(model)}},
			})
		}
		s.ResourceSlices = append(s.ResourceSlices, slice)
		s.Pods = append(s.Pods, &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "pod-" + name, Namespace: "default"},
			Spec: v1.PodSpec{
				Containers:     []v1.Container{{Name: "c"}},
				ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("one-gpu")}},
			},
		})
	}
	return s
}

func BenchmarkValidate(b *testing.B) {
	for _, size := range []struct{ nodes, gpus int }{{10, 8}, {100, 8}, {1000, 8}} {
		b.Run(fmt.Sprintf("nodes=%d/gpus=%d", size.nodes, size.gpus), func(b *testing.B) {
			s := benchSnapshot(size.nodes, size.gpus)
			// The fixture must be what it claims: valid, with one class
			// (b200) that matches nothing.
			ds := Validate(s, Options{})
			if len(ds) != 1 || ds[0].Code != CodeClassMatchesNoDevice {
				b.Fatalf("want exactly one ClassMatchesNoDevice (class b200), got:\n%s", render(ds))
			}
			for b.Loop() {
				Validate(s, Options{})
			}
		})
	}
}

// podWithClaims is one pod with n pod claims, all from the same template,
// and one container that references each of them: the shape that made the
// container-claim check quadratic.
func podWithClaims(n int) *snapshot.Snapshot {
	s := benchSnapshot(1, 8)
	p := s.Pods[0]
	p.Spec.ResourceClaims = nil
	p.Spec.Containers[0].Resources.Claims = nil
	for i := range n {
		name := fmt.Sprintf("c-%d", i)
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: name, ResourceClaimTemplateName: ptr.To("one-gpu")})
		p.Spec.Containers[0].Resources.Claims = append(p.Spec.Containers[0].Resources.Claims, v1.ResourceClaim{Name: name})
	}
	return s
}

// BenchmarkValidatePodClaims validates one pod with many claims; the time
// per claim must not grow with the number of claims.
func BenchmarkValidatePodClaims(b *testing.B) {
	for _, n := range []int{1000, 4000, 20000} {
		b.Run(fmt.Sprintf("claims=%d", n), func(b *testing.B) {
			s := podWithClaims(n)
			if ds := Validate(s, Options{SkipDeviceMatching: true}); len(ds) != 0 {
				b.Fatalf("want a valid pod, got:\n%s", render(ds))
			}
			for b.Loop() {
				Validate(s, Options{SkipDeviceMatching: true})
			}
		})
	}
}

// BenchmarkRejected is what every command pays before it simulates: the
// checks of what the API server rejects, without pools and device matching.
func BenchmarkRejected(b *testing.B) {
	for _, size := range []struct{ nodes, gpus int }{{1000, 8}, {10000, 8}} {
		b.Run(fmt.Sprintf("nodes=%d/gpus=%d", size.nodes, size.gpus), func(b *testing.B) {
			s := benchSnapshot(size.nodes, size.gpus)
			if ds := Rejected(s); len(ds) != 0 {
				b.Fatalf("want nothing rejected, got:\n%s", render(ds))
			}
			for b.Loop() {
				Rejected(s)
			}
		})
	}
}
