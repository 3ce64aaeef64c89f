package analysis

import (
	"fmt"
	"math/bits"
	"math/rand"
	"testing"
)

// packComponent's count is the brute-force maximum over every subset, on
// random components of up to 12 devices and 3 counters (some amounts
// zero, some counters used up). Overdrawn counters never reach it:
// maxPacking leaves their pools' devices out.
func TestPackComponentIsTheMaximum(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		n, dims := 1+r.Intn(12), 1+r.Intn(3)
		vecs := make([][]int64, n)
		for i := range vecs {
			vecs[i] = make([]int64, dims)
			for j := range vecs[i] {
				vecs[i][j] = r.Int63n(5) // 0 to 4
			}
			if r.Intn(3) == 0 && i > 0 {
				vecs[i] = append([]int64(nil), vecs[r.Intn(i)]...) // interchangeable kinds
			}
		}
		left := make([]int64, dims)
		for j := range left {
			left[j] = r.Int63n(12)
		}
		limit := 1 + r.Intn(n+1)

		want := 0
		for set := uint(0); set < 1<<n; set++ {
			fits := true
			for j := 0; j < dims && fits; j++ {
				var sum int64
				for i := 0; i < n; i++ {
					if set&(1<<i) != 0 {
						sum += vecs[i][j]
					}
				}
				fits = sum <= left[j]
			}
			if fits {
				want = max(want, min(bits.OnesCount(set), limit))
			}
		}

		taken, exact := packComponent(vecs, left, limit)
		got := 0
		sums := make([]int64, dims)
		for i, ok := range taken {
			if ok {
				got++
				for j := range sums {
					sums[j] += vecs[i][j]
				}
			}
		}
		desc := fmt.Sprintf("seed %d: vectors %v, left %v, limit %d", seed, vecs, left, limit)
		if !exact {
			t.Errorf("%s: want an exhaustive search, got a cut one", desc)
		}
		if got != want {
			t.Errorf("%s: want %d devices, got %d", desc, want, got)
		}
		for j := range sums {
			if got > 0 && sums[j] > left[j] {
				t.Errorf("%s: counter %d overdrawn by the devices taken (%d > %d)", desc, j, sums[j], left[j])
			}
		}
	}
}
