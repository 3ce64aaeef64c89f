package timeline

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/load"
)

func loadInput(t *testing.T, files ...string) *Input {
	t.Helper()
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.Join("testdata", f))
	}
	res, err := load.Load(paths, load.Options{Strict: true})
	if err != nil {
		t.Fatalf("loading %v: %v", files, err)
	}
	in, err := Prepare(res.Snapshot, res.Files, nil)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func run(t *testing.T, in *Input, opts Options) *Result {
	t.Helper()
	r, err := Run(context.Background(), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSmoke(t *testing.T) {
	r := run(t, loadInput(t, "queue.yaml"), Options{})
	for _, p := range r.Pods {
		t.Logf("%+v bound=%v finished=%v", p, deref(p.Bound), deref(p.Finished))
	}
	t.Logf("%+v", r.Summary)
}

func deref(s *Seconds) any {
	if s == nil {
		return nil
	}
	return *s
}

func TestSmokeScale(t *testing.T) {
	as := autoscale.Options{}
	r := run(t, loadInput(t, "scaleup.yaml"), Options{Autoscale: &as, ScaleDown: autoscale.DefaultScaleDownOptions()})
	for _, p := range r.Pods {
		t.Logf("%s bound=%v finished=%v wait=%v", p.Name, deref(p.Bound), deref(p.Finished), p.Wait)
	}
	t.Logf("%+v %+v end=%v", r.ScaleUps, r.ScaleDowns, r.Inputs.End)
	t.Logf("%+v", r.Summary.Groups)
}
