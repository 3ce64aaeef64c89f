package result

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// omitted collects, walking t, the JSON names of the fields that are left
// out when empty or zero (omitempty), as "parent.field".
func omitted(t reflect.Type, parent string, seen map[reflect.Type]bool, out *[]string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := name
		if parent != "" {
			path = parent + "." + name
		}
		if strings.Contains(opts, "omitempty") {
			*out = append(*out, path)
		}
		omitted(f.Type, path, seen, out)
	}
}

// docs/result.md lists every field that is omitted when empty or zero, so
// that a reader of the schema knows which fields may be absent.
func TestResultDocListsOmittedFields(t *testing.T) {
	var want []string
	omitted(reflect.TypeFor[Result](), "", map[reflect.Type]bool{}, &want)
	slices.Sort(want)
	data, err := os.ReadFile("../../docs/result.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, found := strings.Cut(string(data), "Omitted when empty or zero:")
	if !found {
		t.Fatal(`docs/result.md has no "Omitted when empty or zero:" paragraph`)
	}
	para, _, _ := strings.Cut(after, "\n\n")
	var got []string
	for _, m := range regexp.MustCompile("`([a-zA-Z.]+)`").FindAllStringSubmatch(para, -1) {
		got = append(got, m[1])
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields omitted when zero: docs/result.md (+) and the Go types (-) differ:\n%s", diff)
	}
}
