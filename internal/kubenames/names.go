// Package kubenames makes object names the way Kubernetes controllers do,
// but deterministically: where a controller draws a random suffix, drasim
// derives it from a key so that the same input always gives the same names.
package kubenames

import (
	"crypto/sha1"
	"encoding/hex"
	"hash/fnv"
)

// suffixAlphabet is the alphabet of kube's random suffixes
// (k8s.io/apimachinery/pkg/util/rand): no vowels, no confusable digits.
const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// Suffix returns an n-character kube-style suffix derived from key.
func Suffix(key string, n int) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	v := h.Sum64()
	out := make([]byte, n)
	for i := range out {
		if v == 0 {
			h.Write([]byte{byte(i)})
			v = h.Sum64()
		}
		out[i] = suffixAlphabet[v%uint64(len(suffixAlphabet))]
		v /= uint64(len(suffixAlphabet))
	}
	return string(out)
}

// GenerateName appends a suffix to base the way the API server resolves
// generateName: the base is cut so that the name stays within maxLen.
func GenerateName(base, key string, maxLen int) string {
	const n = 5
	if len(base) > maxLen-n {
		base = base[:maxLen-n]
	}
	return base + Suffix(key, n)
}

// UID returns a deterministic RFC 4122 (version 5 style) UID for key, for
// objects and share IDs that the API server or the allocator would give a
// random one.
func UID(key string) string {
	sum := sha1.Sum([]byte(key))
	sum[6] = (sum[6] & 0x0f) | 0x50
	sum[8] = (sum[8] & 0x3f) | 0x80
	// 8-4-4-4-12 hex digits, written into one buffer: a replay makes one
	// for every pod and claim it builds, and fmt.Sprintf cost six
	// allocations each.
	var b [36]byte
	hex.Encode(b[0:8], sum[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], sum[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], sum[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], sum[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], sum[10:16])
	return string(b[:])
}
