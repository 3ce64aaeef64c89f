package sweep

import (
	"fmt"

	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
)

// Problems with a sweep file are load.Errors, as every problem with an
// input: the file, the axis when the problem is in one (the error's
// object), the field (a JSON path such as spec.axes[1].values[0]) and
// what is wrong.

// errorList collects the errors of one sweep file.
type errorList struct {
	file string
	errs load.Errors
}

func (l *errorList) add(axis, field, format string, args ...any) {
	object := ""
	if axis != "" {
		object = fmt.Sprintf("axis %q", axis)
	}
	l.errs = append(l.errs, &load.Error{Source: snapshot.Source{File: l.file, Item: -1}, Object: object, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (l *errorList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	return l.errs
}

// fileError is one error about a sweep file as a whole.
func fileError(file, format string, args ...any) error {
	l := &errorList{file: file}
	l.add("", "", format, args...)
	return l.err()
}
