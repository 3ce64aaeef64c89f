package sweep

import (
	"fmt"
	"strings"
)

// Error is one problem with a sweep file: the file, the axis when the
// problem is in one, the field (a JSON path such as spec.axes[1].values[0])
// and what is wrong.
type Error struct {
	File  string
	Axis  string
	Field string
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Axis != "" {
		fmt.Fprintf(&b, ": axis %q", e.Axis)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Errors are every problem found in a sweep file, returned as one error so
// that a user sees them all in one run.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// errorList collects errors for one file.
type errorList struct {
	file string
	errs Errors
}

func (l *errorList) add(axis, field, format string, args ...any) {
	l.errs = append(l.errs, &Error{File: l.file, Axis: axis, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (l *errorList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	return l.errs
}
