package app

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// repoRoot is the repository, seen from this package.
const repoRoot = "../../.."

// docExample is one command shown in the documentation with its output.
type docExample struct {
	file string
	line int
	args []string
	// want is what the command prints on standard output. With partial
	// set, the documentation cut the output short with a last line "...".
	want    string
	partial bool
}

// docExamples finds, in the fenced code blocks of README.md and docs/*.md,
// every line "$ drasim ARGS" and the lines after it up to the next "$ " line
// or the end of the block: the output the documentation promises.
func docExamples(t *testing.T) []docExample {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(repoRoot, "README.md")}, files...)
	var out []docExample
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		inBlock := false
		var cur *docExample
		var lines []string
		flush := func() {
			if cur == nil {
				return
			}
			if n := len(lines); n > 0 && lines[n-1] == "..." {
				cur.partial = true
				lines = lines[:n-1]
			}
			cur.want = strings.Join(lines, "\n") + "\n"
			out = append(out, *cur)
			cur, lines = nil, nil
		}
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "```"):
				flush()
				inBlock = !inBlock
			case !inBlock:
			case strings.HasPrefix(line, "$ drasim "):
				flush()
				args, err := splitWords(strings.TrimPrefix(line, "$ drasim "))
				if err != nil {
					t.Fatalf("%s:%d: %v", file, n, err)
				}
				cur = &docExample{file: strings.TrimPrefix(file, repoRoot+"/"), line: n, args: args}
			case strings.HasPrefix(line, "$ "):
				flush()
			case cur != nil:
				lines = append(lines, line)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// splitWords splits a command line as a shell would for the simple
// quoting the documentation uses: single and double quotes, no escapes.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// TestDocumentedExamples runs every command the documentation shows with
// its output (a "$ drasim ..." line in a fenced block) from the
// repository's root, and compares what it prints on standard output with
// what the documentation shows, so that the two cannot drift apart.
func TestDocumentedExamples(t *testing.T) {
	examples := docExamples(t)
	if len(examples) < 7 {
		t.Fatalf("want the examples of README.md and docs/, found %d", len(examples))
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv(stepSummaryEnv, "")
	t.Chdir(repoRoot)
	for _, ex := range examples {
		t.Run(fmt.Sprintf("%s:%d", ex.file, ex.line), func(t *testing.T) {
			r := drasim(t, "", ex.args...)
			got := r.stdout
			if ex.partial {
				if !strings.HasPrefix(got, ex.want) {
					t.Errorf("$ drasim %s: the output does not start as %s:%d shows.\nshown:\n%s\nprinted:\n%s",
						strings.Join(ex.args, " "), ex.file, ex.line, ex.want, got)
				}
				return
			}
			if got != ex.want {
				t.Errorf("$ drasim %s: the output differs from %s:%d.\nshown:\n%s\nprinted:\n%s",
					strings.Join(ex.args, " "), ex.file, ex.line, ex.want, got)
			}
		})
	}
}

// TestMakeHelp: `make` alone lists the targets, and what it prints is
// meant for people: no unexpanded $(VARIABLE).
func TestMakeHelp(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	out, err := exec.Command("make", "-s", "-C", repoRoot, "help").CombinedOutput()
	if err != nil {
		t.Fatalf("make help: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "$(") {
		t.Errorf("make help prints an unexpanded variable:\n%s", out)
	}
	for _, target := range []string{"test", "fuzz-smoke", "fuzz", "update", "bench"} {
		if !strings.Contains(string(out), "  "+target+" ") {
			t.Errorf("make help does not list %q:\n%s", target, out)
		}
	}
}

// TestMakeUpdateCoversEveryGoldenPackage: `make update` regenerates every
// golden file, so GOLDEN_PKGS in the Makefile names every package whose
// tests use internal/golden (which defines -update), and no other.
func TestMakeUpdateCoversEveryGoldenPackage(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, line := range strings.Split(string(makefile), "\n") {
		if rest, ok := strings.CutPrefix(line, "GOLDEN_PKGS :="); ok {
			for _, p := range strings.Fields(rest) {
				listed = append(listed, strings.Trim(strings.TrimPrefix(p, "./"), "/"))
			}
		}
	}
	if len(listed) == 0 {
		t.Fatalf("Makefile: want a line GOLDEN_PKGS := PACKAGES, found none")
	}
	var found []string
	err = filepath.WalkDir(repoRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != repoRoot && (strings.HasPrefix(d.Name(), ".") || d.Name() == "tools") {
			return filepath.SkipDir // hidden directories; tools/ holds other Go modules
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// The needle is cut in two so that this file does not hold it.
		if strings.Contains(string(src), `"github.com/drasim/drasim/internal/`+`golden"`) {
			rel, err := filepath.Rel(repoRoot, filepath.Dir(path))
			if err != nil {
				return err
			}
			if !slices.Contains(found, rel) {
				found = append(found, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	slices.Sort(found)
	if diff := cmp.Diff(found, listed); diff != "" {
		t.Errorf("Makefile GOLDEN_PKGS differs from the packages whose tests have an -update flag (-found +listed):\n%s", diff)
	}
}
