package dra

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// The allocator's errors that k8s.io/dynamic-resource-allocation v0.37
// words differently from the allocators of kube-scheduler 1.34-1.36
// (v0.34-v0.36, the same words in all three implementations).
var (
	// v0.37 checks the claim limit request by request; before, the
	// claim's total once: "claim %s: number of requested devices %d
	// exceeds the claim limit of %d".
	claimLimit = regexp.MustCompile(`^claim (\S+), request \S+: adding (\d+) devices exceeds the claim limit of (\d+), with (\d+) already accounted for$`)
	// v0.37 names the device a CEL runtime error came from ("selector #%d
	// on device %s: CEL runtime error: %w") and its cel package adds a hint
	// to "no such key" errors (cel.EnhanceRuntimeError).
	celOnDevice = regexp.MustCompile(`^((?:claim|class) \S+: selector #\d+) on device \S+: CEL runtime error: `)
)

const celNoSuchKeyHint = ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields"

// olderWording returns err as the allocator of kube-scheduler 1.34-1.36
// words it, where the words are all that differ. The claim limit's total
// is the devices counted up to the request that crossed it: the older
// allocator adds the claim's later requests as well before it compares,
// so for a claim whose limit a request before its last one crossed, its
// number is larger (docs/fidelity.md).
func olderWording(err error) error {
	msg := err.Error()
	if m := claimLimit.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[2])
		already, _ := strconv.Atoi(m[4])
		return errors.New("claim " + m[1] + ": number of requested devices " + strconv.Itoa(n+already) + " exceeds the claim limit of " + m[3])
	}
	if loc := celOnDevice.FindStringSubmatchIndex(msg); loc != nil {
		return errors.New(msg[loc[2]:loc[3]] + ": CEL runtime error: " + strings.TrimSuffix(msg[loc[1]:], celNoSuchKeyHint))
	}
	return err
}
