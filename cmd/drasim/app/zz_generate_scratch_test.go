package app

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func runGen(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	streams := Streams{Out: &out, Err: &errb}
	root := NewRootCommand(streams)
	g := &GlobalOptions{Output: "table"}
	_ = g
	root.AddCommand(NewGenerateCommand(streams, g))
	// mimic Run
	root.SetArgs(args)
	err := root.Execute()
	code := 0
	if err != nil {
		code = 1
		if ee, ok := err.(*ExitError); ok {
			code = ee.Code
		}
		errb.WriteString("ERR: " + err.Error())
	}
	return code, out.String(), errb.String()
}

func TestScratchGenerate(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "c.yaml")
	for _, args := range [][]string{
		{"generate", "--nodes", "3", "--pods", "2"},
		{"generate", "--nodes", "0"},
		{"generate", "--profiles", "tpu=1"},
		{"generate", "--profiles", "l4"},
		{"generate", "--workloads", "cpu=x"},
		{"generate", "--pods", "-3"},
		{"generate", "--nodes", "5", "--output-file", f},
		{"generate", "--nodes", "5", "--output-file", f},
		{"generate", "--nodes", "5", "--output-file", f, "--force"},
		{"generate", "--output-file", dir},
		{"generate", "--output-file", "/nonexistent/x.yaml"},
		{"-o", "json", "generate"},
	} {
		code, out, errs := runGen(args...)
		if len(out) > 200 {
			out = out[:200] + "..."
		}
		t.Logf("%v -> %d\nOUT:%s\nERR:%s", args, code, out, errs)
	}
	st, _ := os.Stat(f)
	t.Logf("size %d", st.Size())
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		t.Log(e.Name())
	}
}
