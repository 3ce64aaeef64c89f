package dra

import (
	"errors"
	"testing"
)

// TestOlderWording: kube-scheduler v1.36.3 failed 21-scheduler-errors'
// claims with these words, where v0.37.2's allocator names the request
// and the device (and hints at optional chaining); anything else is kept.
func TestOlderWording(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{
			name: "claim limit",
			in:   "claim default/count-33-gpus-x86l9, request gpus: adding 33 devices exceeds the claim limit of 32, with 0 already accounted for",
			want: "claim default/count-33-gpus-x86l9: number of requested devices 33 exceeds the claim limit of 32",
		},
		{
			name: "claim limit crossed by a later request",
			in:   "claim ns/c, request b: adding 30 devices exceeds the claim limit of 32, with 4 already accounted for",
			want: "claim ns/c: number of requested devices 34 exceeds the claim limit of 32",
		},
		{
			name: "CEL runtime error in a claim",
			in:   "claim default/bad-selector-gpu-lckhh: selector #0 on device gpu.example.com/small-0/gpu-0: CEL runtime error: no such key: profile. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields",
			want: "claim default/bad-selector-gpu-lckhh: selector #0: CEL runtime error: no such key: profile",
		},
		{
			name: "CEL runtime error in a class",
			in:   "class gpu.example.com: selector #2 on device d/p/x: CEL runtime error: no such overload",
			want: "class gpu.example.com: selector #2: CEL runtime error: no such overload",
		},
		{
			name: "other errors are kept",
			in:   "claim default/x: selector #0: CEL compile error: undeclared reference",
			want: "claim default/x: selector #0: CEL compile error: undeclared reference",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := olderWording(errors.New(tc.in)).Error(); got != tc.want {
				t.Errorf("olderWording(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}
