package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// entries lists the names in dir, to see that no temporary file is left.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteStdout(t *testing.T) {
	var out bytes.Buffer
	tg := Target{Flag: "--x", Path: "-"}
	if err := tg.Check(nil); err != nil {
		t.Fatalf("Check(-): want nil, got %v", err)
	}
	if err := tg.Write(&out, writeString("hello")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "hello" {
		t.Errorf("want hello on stdout, got %q", out.String())
	}
}

func TestWriteNewAndExistingRegularFiles(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.yaml")
	tg := Target{Flag: "--x", Path: path}
	if err := tg.Write(nil, writeString("one")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("new file: want mode 0644 under umask 022, got %v", st.Mode())
	}
	// A replaced file keeps its mode.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tg.Write(nil, writeString("two")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "two" {
		t.Errorf("want the file replaced with %q, got %q", "two", data)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("replaced file: want its mode 0600 kept, got %v", st.Mode())
	}
	// A failed write keeps the old file and leaves no temporary file.
	boom := errors.New("boom")
	err := tg.Write(nil, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "--x "+path+": ") {
		t.Errorf("want the writer's error prefixed with the target, got %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "two" {
		t.Errorf("a failed write must keep the old file, got %q", data)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("want only out.yaml in the directory, got %v", got)
	}
}

func TestWriteThroughSymlinkAndFIFO(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("old contents"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	if err := (Target{Flag: "--x", Path: link}).Write(nil, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a %v", st.Mode())
	}
	if data, _ := os.ReadFile(target); string(data) != "new" {
		t.Errorf("want the target truncated and written, got %q", data)
	}

	// A dangling symlink: writing through creates its target.
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("created", dangling); err != nil {
		t.Fatal(err)
	}
	tg := Target{Flag: "--x", Path: dangling}
	if err := tg.Check(nil); err != nil {
		t.Errorf("Check of a dangling symlink: want nil, got %v", err)
	}
	if err := tg.Write(nil, writeString("made")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "created")); string(data) != "made" {
		t.Errorf("want the symlink's target created, got %q", data)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- []byte(err.Error())
			return
		}
		data, _ := io.ReadAll(f)
		f.Close()
		got <- data
	}()
	if err := (Target{Flag: "--x", Path: fifo}).Check(nil); err != nil {
		t.Errorf("Check of a FIFO: want nil, got %v", err)
	}
	if err := (Target{Flag: "--x", Path: fifo}).Write(nil, writeString("piped")); err != nil {
		t.Fatal(err)
	}
	if data := <-got; string(data) != "piped" {
		t.Errorf("want the FIFO's reader to get %q, got %q", "piped", data)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced by a %v", st.Mode())
	}
}

func TestWriteIntoDevices(t *testing.T) {
	dir := t.TempDir()
	null, full := filepath.Join(dir, "null"), filepath.Join(dir, "full")
	for path, minor := range map[string]uint32{null: 3, full: 7} {
		if err := unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(1, minor))); err != nil {
			t.Skipf("mknod: %v (needs root)", err)
		}
	}
	if f, err := os.OpenFile(null, os.O_WRONLY, 0); err != nil {
		t.Skipf("devices cannot be opened here (nodev?): %v", err)
	} else {
		f.Close()
	}
	if err := (Target{Flag: "--x", Path: null}).Write(nil, writeString("gone")); err != nil {
		t.Errorf("writing a null device: %v", err)
	}
	err := (Target{Flag: "--y", Path: full}).Write(nil, writeString("no room"))
	if !errors.Is(err, syscall.ENOSPC) || err.Error() != "--y "+full+": "+syscall.ENOSPC.Error() {
		t.Errorf("a full device: want %q, got %v", "--y "+full+": "+syscall.ENOSPC.Error(), err)
	}
	for _, path := range []string{null, full} {
		if st, _ := os.Lstat(path); st.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("%s was replaced by a %v", path, st.Mode())
		}
	}
	if got := entries(t, dir); len(got) != 2 {
		t.Errorf("want only the two devices in the directory, got %v", got)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "in.yaml")
	if err := os.WriteFile(input, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(dir, "alias.yaml")
	if err := os.Symlink(input, alias); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.yaml")
	if err := os.Link(input, hard); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(dir, "in.yaml", "x")
	tests := []struct {
		name      string
		path      string
		inputs    []string
		wantErr   string // the whole message; empty: no error
		wantUsage bool
	}{
		{name: "new file", path: filepath.Join(dir, "new.yaml")},
		{name: "existing file that is no input", path: input, inputs: []string{"-", "demo:00-demo.yaml"}},
		{name: "missing directory", path: filepath.Join(dir, "missing", "out.yaml"),
			wantErr: "--x " + filepath.Join(dir, "missing", "out.yaml") + ": directory " + filepath.Join(dir, "missing") + " does not exist"},
		{name: "parent is a file", path: notDir, wantErr: "--x " + notDir + ": " + input + " is not a directory"},
		{name: "a directory", path: dir, wantErr: "--x " + dir + ": is a directory; give a file name", wantUsage: true},
		{name: "the input", path: input, inputs: []string{input},
			wantErr: "--x " + input + ": refusing to write: this file is read as input", wantUsage: true},
		{name: "a symlink to the input", path: alias, inputs: []string{input},
			wantErr: "--x " + alias + ": refusing to write: it is " + input + ", which is read as input", wantUsage: true},
		{name: "a hard link to the input", path: hard, inputs: []string{input},
			wantErr: "--x " + hard + ": refusing to write: it is " + input + ", which is read as input", wantUsage: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Target{Flag: "--x", Path: tc.path}.Check(tc.inputs)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Fatalf("Check: want error %q, got %q", tc.wantErr, got)
			}
			if err != nil && errors.Is(err, ErrUsage) != tc.wantUsage {
				t.Errorf("errors.Is(err, ErrUsage): want %v, got %v", tc.wantUsage, !tc.wantUsage)
			}
		})
	}
	if got := entries(t, dir); len(got) != 3 {
		t.Errorf("Check must create nothing, the directory holds %v", got)
	}
}

func TestSame(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(file, filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sub, filepath.Join(dir, "sublink")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"one path", file, file, true},
		{"spelled differently", file, dir + "/./sub/../a.txt", true},
		{"a symlink", file, filepath.Join(dir, "link"), true},
		{"a hard link", file, filepath.Join(dir, "hard"), true},
		{"a new file through a linked directory", filepath.Join(sub, "new"), filepath.Join(dir, "sublink", "new"), true},
		{"two new files", filepath.Join(dir, "new1"), filepath.Join(dir, "new2"), false},
		{"two files", file, filepath.Join(dir, "new1"), false},
		{"standard output twice", "-", "-", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Same(Target{Flag: "--a", Path: tc.a}, Target{Flag: "--b", Path: tc.b}); got != tc.want {
				t.Errorf("Same(%s, %s): want %v, got %v", tc.a, tc.b, tc.want, got)
			}
		})
	}
}

func TestEnvironmentTargetString(t *testing.T) {
	if got, want := (Target{Flag: "GITHUB_STEP_SUMMARY", Path: "/s.md"}).String(), "GITHUB_STEP_SUMMARY=/s.md"; got != want {
		t.Errorf("want %q, got %q", want, got)
	}
	if got, want := (Target{Flag: "--output-x", Path: "x"}).String(), "--output-x x"; got != want {
		t.Errorf("want %q, got %q", want, got)
	}
}
