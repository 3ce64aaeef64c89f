package app

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// envPrefix starts the name of every environment variable that sets a
// flag: DRASIM_SCORE_ALL_NODES sets --score-all-nodes.
const envPrefix = "DRASIM_"

// toolingEnv are the DRASIM_* variables of drasim's tests, benchmarks and
// CI (internal/testenv, bench/, scenarios/, .ci/run): they name no flag,
// and are not typos.
var toolingEnv = []string{"DRASIM_BENCH_LARGE", "DRASIM_CI_CACHE", "DRASIM_OPENB", "DRASIM_ORACLE_DIR", "DRASIM_REALWORLD", "DRASIM_REQUIRE_INTEGRATION", "DRASIM_SCREENSHOTS"}

// envName is the variable that sets flag name.
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// applyConfig fills every flag the user did not set from the environment
// (DRASIM_FLAG_NAME) or the config file (flag-name: value), in that order,
// and returns the config file it read ("" when none). Each flag so set is
// annotated with where its value came from (flagSource), so that every
// later message about it names the variable or the file and key. Unknown
// keys and variables are warned about, not refused: a config file serves
// every command, and the environment holds what other tools set.
func applyConfig(cmd *cobra.Command, v *viper.Viper, explicit string) (string, error) {
	env := drasimEnv()
	source := "--config"
	if explicit == "" && env["DRASIM_CONFIG"] != "" {
		explicit, source = env["DRASIM_CONFIG"], "DRASIM_CONFIG"
	}
	file, err := configFile(v, explicit, source)
	if err != nil {
		return "", err
	}
	known := flagNames(cmd.Root())
	if file != "" {
		for _, k := range unknownConfigKeys(known, v.AllKeys()) {
			fmt.Fprintf(cmd.ErrOrStderr(), "warning: config file %s: unknown key %q (ignored)\n", file, k)
		}
	}
	for _, name := range unknownEnv(known, env) {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: environment variable %s names no flag of any drasim command (ignored)\n", name)
	}
	var ferr error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if ferr != nil || f.Changed || f.Name == "config" || f.Name == "help" {
			return
		}
		names := append([]string{f.Name}, oldNames(f.Name)...)
		for _, name := range names {
			if val, ok := env[envName(name)]; ok {
				ferr = setFrom(f, val, envName(name), fmt.Sprintf("%s=%q", envName(name), val))
				return
			}
		}
		for _, name := range names {
			if file != "" && v.IsSet(name) {
				val := configString(v.Get(name))
				src := fmt.Sprintf("config file %s: %s", file, name)
				ferr = setFrom(f, val, src, fmt.Sprintf("%s: %q", src, val))
				return
			}
		}
	})
	return file, ferr
}

// setFrom sets f to val, which came from src, and annotates f with src.
// what is the value as the user wrote it, for the error.
func setFrom(f *pflag.Flag, val, src, what string) error {
	if err := f.Value.Set(val); err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %s", what, valueProblem(f, err))}
	}
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[sourceAnnotation] = []string{src}
	return nil
}

// configString renders a config file's value as a flag's text: lists
// joined with commas, as a repeated or comma-separated flag takes them.
func configString(val any) string {
	if list, ok := val.([]any); ok {
		parts := make([]string, len(list))
		for i, p := range list {
			parts[i] = fmt.Sprint(p)
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(val)
}

// valueProblem says in words what is wrong with a value flag f refused:
// what the flag wants, not the Go parser's message.
func valueProblem(f *pflag.Flag, err error) string {
	var num *strconv.NumError
	if errors.As(err, &num) && errors.Is(num.Err, strconv.ErrRange) {
		return "out of range"
	}
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count":
		return "want a whole number"
	case "float32", "float64":
		return "want a number"
	case "bool":
		return "want true or false"
	case "duration":
		return "want a duration such as 90s, 10m or 1h30m"
	}
	if num != nil {
		return "not a valid " + f.Value.Type()
	}
	return err.Error()
}

// flagError is the error of a flag the command line sets to a value it
// refuses, in valueProblem's words; other flag errors (unknown flag,
// missing value) keep pflag's message.
func flagError(err error) error {
	var invalid *pflag.InvalidValueError
	if errors.As(err, &invalid) {
		// Named by its long name, however it was given (-v or
		// --verbosity): pflag does not say which.
		f := invalid.GetFlag()
		err = fmt.Errorf("invalid argument %q for --%s: %s", invalid.GetValue(), f.Name, valueProblem(f, invalid.Unwrap()))
	}
	return &ExitError{Code: ExitUsage, Err: err}
}

// drasimEnv returns the non-empty DRASIM_* variables of the environment.
// An empty variable sets nothing, as an unset one.
func drasimEnv() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, envPrefix) && v != "" {
			env[k] = v
		}
	}
	return env
}

// unknownEnv returns, sorted, the variables of env that set no flag of
// any command (nor an old flag name) and are not drasim's tooling's.
func unknownEnv(known map[string]bool, env map[string]string) []string {
	vars := map[string]bool{}
	for name := range known {
		vars[envName(name)] = true
	}
	for old := range flagAliases() {
		vars[envName(old)] = true
	}
	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if !vars[k] && !slices.Contains(toolingEnv, k) {
			unknown = append(unknown, k)
		}
	}
	return unknown
}

// flagNames returns the name of every flag of every drasim command.
func flagNames(root *cobra.Command) map[string]bool {
	known := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return known
}

// unknownConfigKeys returns, sorted, the top-level keys that name no flag of
// any drasim command (a config file serves every command) nor an old flag
// name.
func unknownConfigKeys(known map[string]bool, keys []string) []string {
	aliases := flagAliases()
	var unknown []string
	for _, k := range keys {
		k, _, _ = strings.Cut(k, ".")
		if !known[k] && aliases[k] == "" && !slices.Contains(unknown, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	return unknown
}

// oldNames returns, sorted, the old names of flag (flagAliases).
func oldNames(flag string) []string {
	aliases := flagAliases()
	var out []string
	for _, old := range slices.Sorted(maps.Keys(aliases)) {
		if aliases[old] == flag {
			out = append(out, old)
		}
	}
	return out
}

// workdirConfig is the config file drasim looks for in the working
// directory when $XDG_CONFIG_HOME/drasim/config.yaml does not exist.
const workdirConfig = "drasim.yaml"

// configFile reads the config file into v and returns its path ("" when
// there is none): explicit (from source, --config or DRASIM_CONFIG) if
// given, else $XDG_CONFIG_HOME/drasim/config.yaml, else ./drasim.yaml.
//
// A config file's keys are flag names; a file with apiVersion or kind is
// a Kubernetes object, most likely a snapshot. Named by --config, or in
// drasim's own config directory, it is an error; ./drasim.yaml is then
// a snapshot that happens to have that name and is not read as config.
func configFile(v *viper.Viper, explicit, source string) (string, error) {
	file, inWorkdir := explicit, false
	if file == "" {
		file, inWorkdir = defaultConfigFile()
	}
	if file == "" {
		return "", nil
	}
	read := viper.New()
	read.SetConfigFile(file)
	if err := read.ReadInConfig(); err != nil {
		var msg string
		var pe *os.PathError
		switch {
		case errors.As(err, &pe):
			msg = pe.Err.Error()
		default:
			var parse viper.ConfigParseError
			if errors.As(err, &parse) {
				msg = strings.TrimPrefix(parse.Unwrap().Error(), "yaml: ")
			} else {
				msg = err.Error()
			}
		}
		where := ""
		if explicit != "" {
			where = " (" + source + ")"
		}
		return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("config file %s%s: %s", file, where, msg)}
	}
	if read.IsSet("kind") || read.IsSet("apiversion") {
		if inWorkdir {
			return "", nil
		}
		return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("config file %s: a Kubernetes object (kind %q), not a drasim config file, whose keys are flag names (seed: 7); give snapshots with -f", file, read.GetString("kind"))}
	}
	if err := v.MergeConfigMap(read.AllSettings()); err != nil {
		return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("config file %s: %w", file, err)}
	}
	return file, nil
}

// defaultConfigFile returns the config file found without --config, and
// whether it is the working directory's drasim.yaml.
func defaultConfigFile() (string, bool) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir != "" {
		if path := filepath.Join(dir, "drasim", "config.yaml"); isFile(path) {
			return path, false
		}
	}
	if isFile(workdirConfig) {
		return workdirConfig, true
	}
	return "", false
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// sourcesNamed returns, for each flag that msg names as --flag and whose
// value came from the environment or the config file, where it came from:
// "--max-loops is set by DRASIM_MAX_LOOPS". Messages name flags as the
// command line spells them; this says where else the value was given.
func sourcesNamed(fs *pflag.FlagSet, msg string) []string {
	var out []string
	fs.VisitAll(func(f *pflag.Flag) {
		src := f.Annotations[sourceAnnotation]
		if len(src) == 0 || f.Changed || !mentions(msg, "--"+f.Name) {
			return
		}
		out = append(out, fmt.Sprintf("--%s is set by %s", f.Name, src[0]))
	})
	return out
}

// mentions reports whether msg holds flag as a whole word (--max-loops,
// not --max-loops-x).
func mentions(msg, flag string) bool {
	for i := 0; ; {
		j := strings.Index(msg[i:], flag)
		if j < 0 {
			return false
		}
		end := i + j + len(flag)
		if end == len(msg) || !(msg[end] == '-' || msg[end] >= 'a' && msg[end] <= 'z' || msg[end] >= '0' && msg[end] <= '9') {
			return true
		}
		i = end
	}
}
