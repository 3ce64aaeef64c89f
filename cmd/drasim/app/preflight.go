package app

import (
	"slices"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// preflight makes checks run once the command line is parsed (and the
// environment and config file applied), before the command reads any
// input: a wrong flag must not cost a load or a replay. The checks are
// the same ones the command makes again where it builds its options.
func preflight(cmd *cobra.Command, checks ...func() error) {
	cmd.PreRunE = func(*cobra.Command, []string) error {
		for _, check := range checks {
			if err := check(); err != nil {
				return err
			}
		}
		return nil
	}
}

// sourceAnnotation, on a flag, says where its value came from when it was
// not the command line (applyConfig sets it): "DRASIM_SEED", "config file
// drasim.yaml, key seed".
const sourceAnnotation = "drasim.io/source"

// flagSource names where the value of flag name came from, for messages:
// "--seed" on the command line, else the variable or the config file key.
func flagSource(fs *pflag.FlagSet, name string) string {
	f := fs.Lookup(name)
	if f == nil {
		return "--" + name
	}
	if src := f.Annotations[sourceAnnotation]; len(src) > 0 && !f.Changed {
		return src[0]
	}
	return "--" + f.Name
}

// flagGiven reports whether flag name was set on the command line, in the
// environment or in the config file (not left at its default).
func flagGiven(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && (f.Changed || len(f.Annotations[sourceAnnotation]) > 0)
}

// check refuses engine flags that cannot work, before anything is read.
func (f *engineFlags) check() error {
	_, err := f.parse()
	return err
}

// check refuses the capacity flags that cannot work, before anything is
// read.
func (f *capacityFlags) check() error {
	if err := f.engine.check(); err != nil {
		return err
	}
	if f.MaxHeadroom <= 0 {
		return usageErrorf("--max-headroom must be positive, got %d", f.MaxHeadroom)
	}
	if f.MaxSequential <= 0 {
		return usageErrorf("--max-sequential must be positive, got %d", f.MaxSequential)
	}
	_, err := f.domainOptions(sim.Options{})
	return err
}

// checkSpares refuses, once the snapshot is read and before the replay, a
// --spares group the snapshot does not have.
func (f *capacityFlags) checkSpares(res *load.Result) error {
	group, _, _ := strings.Cut(f.Spares, "=")
	if group == "" {
		return nil
	}
	names := nodeGroupNames(res)
	if slices.Contains(names, group) {
		return nil
	}
	has := "it has none"
	if len(names) > 0 {
		has = "it has " + strings.Join(names, ", ")
	}
	return usageErrorf("--spares %s: no NodeGroup %q in the snapshot (%s)", f.Spares, group, has)
}

// check refuses the timeline flags that cannot work, before anything is
// read.
func (f *timelineFlags) check(stdinSnapshot bool) error {
	if f.JUnit != "" && f.Gates == "" {
		return usageErrorf("--output-junit needs --gates")
	}
	if f.Gates != "" && len(f.Compare) > 0 {
		return usageErrorf("--gates checks one timeline: it cannot be used with --compare")
	}
	if _, err := f.simOptions(nil); err != nil {
		return err
	}
	if err := f.checkTimes(); err != nil {
		return err
	}
	if _, err := f.scaleDown.options(); err != nil {
		return err
	}
	if f.Autoscale {
		if _, err := f.scale.options(sim.Options{}, f.scale.Expander); err != nil {
			return err
		}
	}
	stdin := 0
	if stdinSnapshot {
		stdin++
	}
	for _, t := range f.Traces {
		if t == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usageErrorf("standard input can be read once: give it to one -f - or --trace -")
	}
	return nil
}

// nodeGroupNames are the names of the snapshot's NodeGroups, sorted.
func nodeGroupNames(res *load.Result) []string {
	var names []string
	for _, ng := range res.Snapshot.NodeGroups {
		names = append(names, ng.Name)
	}
	slices.Sort(names)
	return names
}
