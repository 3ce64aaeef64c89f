package app

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// docCommand is one drasim command line the documentation shows.
type docCommand struct {
	file string
	line int
	args []string
}

var (
	// inlineDrasim finds `drasim ...` code spans in prose.
	inlineDrasim = regexp.MustCompile("`(drasim [^`]+)`")
	// shellSeparators split a line into its commands.
	shellSeparators = regexp.MustCompile(`\|\||&&|[|;]`)
	// lowerWord is a command's name, or a format.
	lowerWord = regexp.MustCompile(`^[a-z]+$`)
)

// docCommands finds every drasim command line in README.md and the
// markdown under docs/: lines of fenced blocks (after a prompt "$ ", a
// YAML "- " or "run: "; continued with a trailing backslash; each command
// of a pipeline or list) and `drasim ...` code spans in the text.
func docCommands(t *testing.T) []docCommand {
	t.Helper()
	files := []string{filepath.Join(repoRoot, "README.md")}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []docCommand
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(file, repoRoot+"/")
		inBlock := false
		lines := strings.Split(string(data), "\n")
		for i := 0; i < len(lines); i++ {
			line, n := lines[i], i+1
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inBlock = !inBlock
				continue
			}
			if !inBlock {
				for _, m := range inlineDrasim.FindAllStringSubmatch(line, -1) {
					out = append(out, commandsOf(name, n, m[1])...)
				}
				continue
			}
			for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
				i++
				line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
			}
			s := strings.TrimSpace(line)
			for _, prefix := range []string{"$ ", "- ", "run: "} {
				s = strings.TrimPrefix(s, prefix)
			}
			out = append(out, commandsOf(name, n, s)...)
		}
	}
	return out
}

// commandsOf splits a shell line into its commands and keeps the drasim
// ones, without redirections.
func commandsOf(file string, line int, s string) []docCommand {
	var out []docCommand
	for _, part := range shellSeparators.Split(s, -1) {
		words, err := splitWords(strings.TrimSpace(part))
		if err != nil || len(words) < 2 || words[0] != "drasim" {
			continue
		}
		var args []string
		for j := 1; j < len(words); j++ {
			w := words[j]
			if w == ">" || w == ">>" || w == "2>" || w == "<" || w == "2>&1" {
				j++ // and its file
				continue
			}
			if strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>") || strings.HasPrefix(w, "#") {
				break
			}
			args = append(args, strings.Trim(w, "[]"))
		}
		out = append(out, docCommand{file: file, line: line, args: args})
	}
	return out
}

// lookupFlag finds a flag of cmd, its own or inherited.
func lookupFlag(cmd *cobra.Command, name string, short bool) *pflag.Flag {
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.InheritedFlags(), cmd.PersistentFlags()} {
		if short {
			if f := fs.ShorthandLookup(name); f != nil {
				return f
			}
		} else if f := fs.Lookup(name); f != nil {
			return f
		}
	}
	return nil
}

// TestDocumentedFlagsExist: every drasim command line in the
// documentation names a command that exists, flags that the command has
// (by their current names, not the old ones kept for compatibility), and
// an -o format the command offers. It runs nothing: it catches the drift
// of the examples that TestDocumentedExamples cannot run.
func TestDocumentedFlagsExist(t *testing.T) {
	commands := docCommands(t)
	if len(commands) < 50 {
		t.Fatalf("want the drasim commands of README.md and docs/, found %d", len(commands))
	}
	root := NewRootCommand(Streams{})
	// The commands' own examples (--help) are documentation too.
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for i, line := range strings.Split(c.Example, "\n") {
			commands = append(commands, commandsOf(c.CommandPath()+" --help example", i+1, strings.TrimSpace(line))...)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	aliases := flagAliases()
	for _, dc := range commands {
		cmd, _, err := root.Find(dc.args)
		where := dc.file + ":" + strconv.Itoa(dc.line) + ": drasim " + strings.Join(dc.args, " ")
		if err != nil || cmd == root {
			// "drasim" alone, or a word such as "drasim's", is prose.
			if len(dc.args) > 0 && !strings.HasPrefix(dc.args[0], "-") && lowerWord.MatchString(dc.args[0]) {
				t.Errorf("%s: no command %q", where, dc.args[0])
			}
			continue
		}
		for j, a := range dc.args {
			if !strings.HasPrefix(a, "-") || a == "-" || a == "--" || strings.ContainsAny(a, "*<…") || strings.Contains(a, "...") {
				continue
			}
			name, short := strings.TrimPrefix(a, "--"), !strings.HasPrefix(a, "--")
			if short {
				name = strings.TrimPrefix(a, "-")[:1]
			}
			name, _, _ = strings.Cut(name, "=")
			if !short {
				if to, ok := aliases[name]; ok {
					t.Errorf("%s: --%s is the old name of --%s", where, name, to)
					continue
				}
			}
			f := lookupFlag(cmd, name, short)
			if f == nil {
				t.Errorf("%s: %s has no flag %s", where, cmd.CommandPath(), a)
				continue
			}
			if f.Name == "output" && j+1 < len(dc.args) && !strings.Contains(a, "=") {
				format := dc.args[j+1]
				if formats := cmd.Annotations[formatsAnnotation]; formats != "" && lowerWord.MatchString(format) &&
					!slices.Contains(strings.Split(formats, ","), format) {
					t.Errorf("%s: %s offers -o %s, not %s", where, cmd.CommandPath(), formats, format)
				}
			}
		}
	}
}

// TestDuplicateFieldIsAlwaysAnError holds docs/cli.md's word: an unknown
// field is a warning without --strict, a field written twice is an error
// with or without it, naming the line.
func TestDuplicateFieldIsAlwaysAnError(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	node := "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n%s\nstatus:\n  allocatable: {cpu: '1', pods: '10'}\n"
	unknown := writeFile(t, dir, "unknown.yaml", strings.Replace(node, "%s", "  nickname: n", 1))
	twice := writeFile(t, dir, "twice.yaml", strings.Replace(node, "%s", "  name: n2", 1))
	if r := drasim(t, "", "validate", "-f", unknown); r.code != ExitOK || !strings.Contains(r.stder+r.stdout, "--strict makes this an error") {
		t.Errorf("unknown field without --strict: want a warning and exit 0, got %d: %s%s", r.code, r.stdout, r.stder)
	}
	for _, strict := range []bool{false, true} {
		args := []string{"validate", "-f", twice}
		if strict {
			args = append(args, "--strict")
		}
		if r := drasim(t, "", args...); r.code != ExitFailure || !strings.Contains(r.stder+r.stdout, `line 5: mapping key "name" already defined at line 4`) {
			t.Errorf("field written twice (strict %v): want an error naming the lines, got %d: %s%s", strict, r.code, r.stdout, r.stder)
		}
	}
}
