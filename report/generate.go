package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/snapshot"
)

// WriteGenerateSummary writes the line drasim generate prints about a
// snapshot it generated: nodes by profile (in generate.Profiles order),
// devices, pending pods and the seed, then "; wrote FILE" when wrote names
// the file it went to.
func WriteGenerateSummary(w io.Writer, s *snapshot.Snapshot, seed int64, wrote string) error {
	devices := 0
	for _, sl := range s.ResourceSlices {
		devices += len(sl.Spec.Devices)
	}
	profiles := map[string]int{}
	for _, n := range s.Nodes {
		profiles[n.Labels[generate.ProfileLabel]]++
	}
	var parts []string
	for _, p := range generate.Profiles() {
		if profiles[p] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", profiles[p], p))
		}
	}
	line := fmt.Sprintf("Generated %d nodes (%s), %d devices, %d pending pods (seed %d)",
		len(s.Nodes), strings.Join(parts, ", "), devices, len(s.Pods), seed)
	if wrote != "" {
		line += "; wrote " + wrote
	}
	_, err := fmt.Fprintln(w, line)
	return err
}
