package validate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/testenv"
	"github.com/drasim/drasim/sim/load"
	yamlv3 "go.yaml.in/yaml/v3"
)

// realworldDir finds the shared corpus of real dumps and upstream examples:
// $DRASIM_REALWORLD, else ../shared/realworld next to the checkout; the test
// skips without it, or fails in CI.
func realworldDir(t *testing.T) string {
	t.Helper()
	return testenv.Realworld(t)
}

type indexEntry struct {
	File string `yaml:"file"`
	Note string `yaml:"note"`
}

// knownDefects are upstream examples that the API server would reject but
// that INDEX.yaml does not (yet) mark as defective, with the field an error
// must name. Each was checked by hand against the API's validation.
var knownDefects = map[string][]string{
	// `deviceClassName` stands next to `exactly:` (v1beta1 style) in a
	// resource.k8s.io/v1 claim, so exactly.deviceClassName is empty.
	"intel-resource-drivers-for-kubernetes/md/doc_gaudi_USAGE.block4.yaml": {"exactly.deviceClassName"},
	// `expression:` is indented as a sibling of `cel:`, so cel is null.
	"intel-resource-drivers-for-kubernetes/md/doc_gpu_USAGE.block4.yaml": {"selectors[0].cel"},
}

// expectation says which errors a corpus file may or must get.
type expectation struct {
	// mustFields: the file is defective; some error's field must contain
	// one of these.
	mustFields []string
	// trimmed: the file is a partial excerpt whose author removed these
	// fields; errors that name one of them (in field or message) are
	// expected, any other error is not.
	trimmed []string
}

var (
	backquoted  = regexp.MustCompile("`([^`]+)`")
	trimmedList = regexp.MustCompile(`([A-Za-z/]+) (?:trimmed|were removed)`)
)

func expectationFor(rel, note string) expectation {
	if f, ok := knownDefects[rel]; ok {
		return expectation{mustFields: f}
	}
	if strings.Contains(note, "DEFECT") || strings.Contains(strings.ToLower(note), "invalid") {
		var fields []string
		for _, m := range backquoted.FindAllStringSubmatch(note, -1) {
			fields = append(fields, strings.Trim(m[1], ": "))
		}
		if len(fields) == 0 {
			fields = []string{""} // defective, any field
		}
		return expectation{mustFields: fields}
	}
	if strings.Contains(note, "PARTIAL") {
		if m := trimmedList.FindStringSubmatch(note); m != nil {
			return expectation{trimmed: strings.Split(m[1], "/")}
		}
	}
	return expectation{}
}

// corpusError is one error found in a corpus file.
type corpusError struct{ field, text string }

// names reports whether the error is about one of the fields: its field path
// contains one, or (inMessage) its text does.
func (f corpusError) names(fields []string, inMessage bool) bool {
	for _, name := range fields {
		if strings.Contains(f.field, name) || (inMessage && strings.Contains(f.text, "`"+name+"`")) {
			return true
		}
	}
	return false
}

// TestRealworld runs Validate over every file of the corpus. Real dumps and
// upstream examples are ground truth: a file the loader accepts must not get
// an error, unless INDEX.yaml documents it as defective, in which case it
// must get an error (from the loader or from Validate) on the named field.
func TestRealworld(t *testing.T) {
	dir := realworldDir(t)
	notes := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(dir, "INDEX.yaml")); err == nil {
		var entries []indexEntry
		if err := yamlv3.Unmarshal(data, &entries); err != nil {
			t.Fatalf("INDEX.yaml: want a list of entries, got error %v", err)
		}
		for _, e := range entries {
			notes[e.File] = e.Note
		}
	}
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			if rel, _ := filepath.Rel(dir, path); rel != "INDEX.yaml" {
				files = append(files, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", dir, err)
	}
	sort.Strings(files)

	var passed, loadRejected, withErrors, defectsFound, partialFound int
	var summary []string
	for _, path := range files {
		rel, _ := filepath.Rel(dir, path)
		want := expectationFor(rel, notes[rel])
		res, err := load.Load([]string{path}, load.Options{})
		// (field, text) of every error, from the loader or from Validate.
		var errs []corpusError
		var loadErrs load.Errors
		if errors.As(err, &loadErrs) {
			for _, e := range loadErrs {
				errs = append(errs, corpusError{e.Field, "load: " + e.Error()})
			}
		} else if err != nil {
			t.Errorf("%s: load failed without a typed error: %v", rel, err)
			continue
		}
		if err != nil {
			loadRejected++
		}
		if res != nil && res.Snapshot != nil {
			for _, d := range Validate(res.Snapshot, Options{}) {
				if d.Severity == SeverityError {
					errs = append(errs, corpusError{d.Field, d.Code + ": " + d.String()})
				}
			}
		}
		if len(errs) == 0 {
			passed++
		} else {
			withErrors++
			for _, e := range errs {
				summary = append(summary, rel+": "+e.text)
			}
		}
		switch {
		case want.mustFields != nil:
			if !slices.ContainsFunc(errs, func(e corpusError) bool { return e.names(want.mustFields, false) }) {
				t.Errorf("%s is defective (%q): want an error on a field naming one of %q, got %d errors: %v", rel, notes[rel], want.mustFields, len(errs), errs)
			} else {
				defectsFound++
			}
		case err != nil:
			// The loader's verdict is not this package's to judge; it is
			// in the summary.
		default:
			for _, e := range errs {
				if want.trimmed != nil && e.names(want.trimmed, true) {
					partialFound++
					continue
				}
				t.Errorf("%s: a file expected to be valid got an error: %s", rel, e.text)
			}
		}
	}
	t.Logf("realworld: %d files, %d without errors, %d with errors (%d rejected by the loader); %d defective files caught; %d errors on fields trimmed from partial excerpts",
		len(files), passed, withErrors, loadRejected, defectsFound, partialFound)
	for _, line := range summary {
		t.Logf("  %s", line)
	}
}
