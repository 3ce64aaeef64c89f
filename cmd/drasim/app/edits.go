package app

import (
	"fmt"
	"os"

	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/whatif"
	"github.com/spf13/pflag"
)

// editFlag is one edit flag as given, in command-line order.
type editFlag struct{ name, value string }

// editFlags are the what-if edit flags of the commands that replay. Every
// edit flag appends to one list, so edits apply in the order given on
// the command line; --edits FILE inserts the file's edits where it stands.
type editFlags struct {
	list []editFlag
}

// editsFileFlag names the edits file flag.
const editsFileFlag = "edits"

type editValue struct {
	name string
	list *[]editFlag
}

func (v *editValue) Set(s string) error {
	*v.list = append(*v.list, editFlag{v.name, s})
	return nil
}

func (v *editValue) String() string { return "" }
func (v *editValue) Type() string   { return "string" }

// editValue is a pflag.SliceValue so that the output-file check sees the
// edits files among the command's inputs (markInput).
var _ pflag.SliceValue = (*editValue)(nil)

func (v *editValue) Append(s string) error { return v.Set(s) }
func (v *editValue) Replace(ss []string) error {
	kept := (*v.list)[:0]
	for _, e := range *v.list {
		if e.name != v.name {
			kept = append(kept, e)
		}
	}
	*v.list = kept
	for _, s := range ss {
		if err := v.Set(s); err != nil {
			return err
		}
	}
	return nil
}

// GetSlice returns the values given to this flag, in order.
func (v *editValue) GetSlice() []string {
	var out []string
	for _, e := range *v.list {
		if e.name == v.name {
			out = append(out, e.value)
		}
	}
	return out
}

func (f *editFlags) add(fs *pflag.FlagSet) {
	fs.Var(&editValue{editsFileFlag, &f.list}, editsFileFlag, "what-if edits file (apiVersion drasim.io/v1alpha1, kind Edits; docs/whatif.md), applied in order (repeatable)")
	markInput(fs, editsFileFlag)
	for _, name := range whatif.FlagNames() {
		fs.Var(&editValue{name, &f.list}, name, whatif.FlagUsage[name]+" (repeatable)")
	}
}

// parse reads the edits in command-line order. A malformed flag is a
// usage error; a bad edits file an input error.
func (f *editFlags) parse() ([]whatif.Edit, error) {
	var edits []whatif.Edit
	for _, e := range f.list {
		if e.name != editsFileFlag {
			ed, err := whatif.ParseFlag(e.name, e.value)
			if err != nil {
				return nil, &ExitError{Code: ExitUsage, Err: err}
			}
			edits = append(edits, ed)
			continue
		}
		data, err := os.ReadFile(e.value)
		if err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--edits: %w", err)}
		}
		list, err := whatif.ParseFile(e.value, data)
		if err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: err}
		}
		edits = append(edits, list...)
	}
	return edits, nil
}

// apply applies the edits to the loaded snapshot (res.Snapshot becomes
// the edited copy) and returns what they changed, or nil without edits.
func (f *editFlags) apply(res *load.Result) (*whatif.Applied, error) {
	edits, err := f.parse()
	if err != nil || len(edits) == 0 {
		return nil, err
	}
	applied, err := whatif.Apply(res.Snapshot, edits)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	res.Snapshot = applied.Snapshot
	return applied, nil
}
