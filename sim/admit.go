package sim

import (
	"fmt"
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
	"github.com/drasim/drasim/sim/validate"
)

// AdmissionError is a snapshot refused because the API server would
// reject some of its objects: such input can make the allocator fail or
// panic (a negative count), and a cluster could never hold it.
type AdmissionError struct {
	// Diagnostics are validate.Rejected's errors, in its order.
	Diagnostics []validate.Diagnostic
}

func (e *AdmissionError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the API server would reject this input (%d error(s)):", len(e.Diagnostics))
	for _, d := range e.Diagnostics {
		b.WriteString("\n")
		b.WriteString(d.String())
	}
	return b.String()
}

// Admit returns an *AdmissionError when the API server would reject an
// object of the snapshot (validate.Rejected), nil otherwise. Simulate,
// Explain and NewEngineFor run it first unless Options.Admitted says the
// caller did.
func Admit(snap *snapshot.Snapshot) error {
	if ds := validate.Rejected(snap); len(ds) > 0 {
		return &AdmissionError{Diagnostics: ds}
	}
	return nil
}

// admit is Admit unless the options say the snapshot was admitted.
func admit(snap *snapshot.Snapshot, opts Options) error {
	if opts.Admitted {
		return nil
	}
	return Admit(snap)
}
