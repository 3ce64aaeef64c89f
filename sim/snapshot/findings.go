package snapshot

import (
	"fmt"
	"strings"
)

// Warning is something suspicious but legal found while reading a snapshot
// (loading it, expanding its controllers, resolving its NodeGroups).
type Warning struct {
	Source  Source `json:"source"`
	Message string `json:"message"`
}

func (w Warning) String() string { return fmt.Sprintf("%s: %s", w.Source, w.Message) }

// Error is one problem with the input. Loading collects all of them before
// giving up, so a user sees every broken object in one run.
type Error struct {
	Source Source
	Object string // e.g. `ResourceSlice "a"`; empty when the document has no identity yet
	Field  string // JSON path, e.g. spec.devices[2].basic
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source.String())
	if e.Object != "" {
		b.WriteString(": ")
		b.WriteString(e.Object)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is the list of problems found; it is returned as one error.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}
