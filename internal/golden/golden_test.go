package golden

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCut(t *testing.T) {
	s := Shared{Start: "<style>\n", End: "</style>", Marker: "/* shared */\n"}
	rest, part := cut([]byte("<html><style>\nbody {}\n</style><p>x</p>"), s)
	if got, want := string(rest), "<html><style>\n/* shared */\n</style><p>x</p>"; got != want {
		t.Errorf("rest: got %q, want %q", got, want)
	}
	if got, want := string(part), "body {}\n"; got != want {
		t.Errorf("part: got %q, want %q", got, want)
	}
	if rest, part := cut([]byte("no style"), s); string(rest) != "no style" || part != nil {
		t.Errorf("without the part: got %q, %q; want the input and nil", rest, part)
	}
}

// TestCheckWithSharedAndOrphans: a golden with a shared part matches its
// two files, and a file Check never read is an orphan.
func TestCheckWithSharedAndOrphans(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.golden.html")
	css := filepath.Join(dir, "style.golden.css")
	orphan := filepath.Join(dir, "gone.golden.html")
	for path, content := range map[string]string{
		page:   "<style>\n/* see style.golden.css */\n</style><p>1</p>\n",
		css:    "body {}\n",
		orphan: "old\n",
	} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shared := Shared{Path: css, Start: "<style>\n", End: "</style>", Marker: "/* see style.golden.css */\n"}
	Check(t, page, []byte("<style>\nbody {}\n</style><p>1</p>\n"), WithShared(shared))
	orphans, err := Orphans(filepath.Join(dir, "*.golden.*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(orphans) != 1 || orphans[0] != orphan {
		t.Errorf("Orphans: got %q, want only %s", orphans, orphan)
	}
	var b bytes.Buffer
	if code := reportOrphans(&b, orphans); code != 1 || !strings.Contains(b.String(), "gone.golden.html is read by no test") {
		t.Errorf("reportOrphans: got code %d and %q, want 1 and a line naming the orphan", code, b.String())
	}
}

// TestCheckReportsADifference: a golden that differs fails the test.
func TestCheckReportsADifference(t *testing.T) {
	if Update() {
		t.Skip("-update rewrites instead of comparing")
	}
	path := filepath.Join(t.TempDir(), "x.golden.txt")
	if err := os.WriteFile(path, []byte("want\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ft := &fakeT{TB: t}
	Check(ft, path, []byte("got\n"))
	if !ft.failed || !strings.Contains(ft.msg, "x.golden.txt differs (-want +got)") {
		t.Errorf("Check on a difference: failed=%v, message %q; want a failure naming the file", ft.failed, ft.msg)
	}
}

type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Errorf(format string, args ...any) {
	f.failed = true
	f.msg = fmt.Sprintf(format, args...)
}
