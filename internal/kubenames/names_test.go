package kubenames

import (
	"crypto/sha1"
	"fmt"
	"testing"
)

// TestUIDFormat holds UID to the fmt.Sprintf it replaced, on keys of every
// length up to a few hundred bytes.
func TestUIDFormat(t *testing.T) {
	for n := range 300 {
		key := fmt.Sprintf("%0*d", n, n)[:n]
		sum := sha1.Sum([]byte(key))
		sum[6] = (sum[6] & 0x0f) | 0x50
		sum[8] = (sum[8] & 0x3f) | 0x80
		want := fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
		if got := UID(key); got != want {
			t.Fatalf("UID(%q) = %s, want %s", key, got, want)
		}
	}
}
