package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/drasim/drasim/internal/testenv"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/whatif"
)

// chromium finds the browser: CHROMIUM_BIN, else chromium (Debian's
// package) or chromium-browser on PATH.
func chromium(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("CHROMIUM_BIN"); bin != "" {
		return bin
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if bin, err := exec.LookPath(name); err == nil {
			return bin
		}
	}
	testenv.Missing(t, "headless Chromium is not installed (apt-get install chromium, or set CHROMIUM_BIN)")
	return ""
}

// browserReport is a report with every chart drawn and both device maps:
// the demo with an L4 node drained and two copies of an H100 node added
// (idle devices to fragment), its failure domains analyzed node by node.
func browserReport(t *testing.T) *analysis.Report {
	t.Helper()
	res, err := load.Load([]string{"../scenarios/00-demo.yaml"}, load.Options{})
	if err != nil {
		t.Fatalf("loading the demo: %v", err)
	}
	var edits []whatif.Edit
	for _, f := range [][2]string{{whatif.FlagDrain, "l4-node-2"}, {whatif.FlagCloneNode, "h100-node-1=2"}} {
		e, err := whatif.ParseFlag(f[0], f[1])
		if err != nil {
			t.Fatal(err)
		}
		edits = append(edits, e)
	}
	applied, err := whatif.Apply(res.Snapshot, edits)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	before, err := sim.Simulate(ctx, res.Snapshot, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := sim.Simulate(ctx, applied.Snapshot, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	applied.Resolve(run.Result)
	rep, err := analysis.Analyze(ctx, run, analysis.Options{FailureDomains: []whatif.DomainOptions{{Domain: whatif.DomainNode}}})
	if err != nil {
		t.Fatal(err)
	}
	rep.Edits = run.Result.Edits
	rep.DeviceMap = analysis.DeviceMapOf(ctx, run.Cluster, "")
	rep.DeviceMapBefore = analysis.DeviceMapOf(ctx, before.Cluster, "")
	return rep
}

// layout is what the page measures of itself in the browser.
const layout = `(() => {
  const box = e => { const r = e.getBoundingClientRect(); return {w: r.width, h: r.height, l: r.left, r: r.right, t: r.top, b: r.bottom}; };
  const out = {scrollWidth: document.documentElement.scrollWidth, charts: [], maps: [], cut: []};
  for (const fig of document.querySelectorAll('figure')) {
    const svg = fig.querySelector('svg');
    out.charts.push({id: fig.id, svg: !!svg, box: svg ? box(svg) : box(fig)});
    if (!svg) continue;
    const s = box(svg);
    for (const text of svg.querySelectorAll('text')) {
      const b = box(text);
      if (b.l < s.l - 0.5 || b.r > s.r + 0.5 || b.t < s.t - 0.5 || b.b > s.b + 0.5) {
        out.cut.push(fig.id + ': "' + text.textContent + '"');
      }
    }
  }
  for (const m of document.querySelectorAll('.devicemap')) {
    out.maps.push({id: m.id, box: box(m), cells: m.querySelectorAll('.cell').length});
  }
  return out;
})()`

type pageLayout struct {
	ScrollWidth float64 `json:"scrollWidth"`
	Charts      []struct {
		ID  string `json:"id"`
		SVG bool   `json:"svg"`
		Box struct{ W, H float64 }
	} `json:"charts"`
	Maps []struct {
		ID    string `json:"id"`
		Cells int    `json:"cells"`
		Box   struct{ W, H float64 }
	} `json:"maps"`
	Cut []string `json:"cut"`
}

// TestHTMLReportInBrowser loads the HTML report in headless Chromium at
// 1280 px: no console error, every chart and both device maps drawn with a
// size, every chart label inside its chart, nothing wider than the window.
func TestHTMLReportInBrowser(t *testing.T) {
	bin := chromium(t)
	var b bytes.Buffer
	if err := WriteCapacityHTML(&b, browserReport(t)); err != nil {
		t.Fatalf("WriteCapacityHTML: %v", err)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()

	// The console only reports what happens after it is subscribed to, on
	// a target that exists: open a blank page, subscribe, then load.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	messages := chromedp.Console(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("loading %s: %v", page, err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[pageLayout](layout))
	if err != nil {
		t.Fatalf("measuring %s: %v", page, err)
	}
	const done = "drasim-browser-test-done"
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`console.log("`+done+`")`)); err != nil {
		t.Fatal(err)
	}
	var consoleErrors []string
	for m, err := range messages {
		if err != nil {
			t.Fatalf("reading the console: %v", err)
		}
		if m.Text == done {
			break
		}
		if m.Type == chromedp.ConsoleError || m.IsException() {
			consoleErrors = append(consoleErrors, m.String())
		}
	}
	if len(consoleErrors) > 0 {
		t.Errorf("console errors: want none, got:\n%s", strings.Join(consoleErrors, "\n"))
	}
	want := []string{ChartUtilization, ChartFragmentation, ChartHeadroom, ChartPrioritizedList, ChartResilience + "-1"}
	var ids []string
	for _, c := range got.Charts {
		ids = append(ids, c.ID)
		if !c.SVG || c.Box.W <= 0 || c.Box.H <= 0 {
			t.Errorf("chart %s: want an SVG with a size, got svg=%v %gx%g", c.ID, c.SVG, c.Box.W, c.Box.H)
		}
	}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("charts: want %v, got %v", want, ids)
	}
	if len(got.Maps) != 2 {
		t.Fatalf("device maps: want before and after, got %d", len(got.Maps))
	}
	// 18 devices in the demo, 8 more on the copies of h100-node-1.
	for i, want := range []int{18, 26} {
		if m := got.Maps[i]; m.Cells != want || m.Box.W <= 0 || m.Box.H <= 0 {
			t.Errorf("device map %s: want %d cells drawn with a size, got %d cells, %gx%g", m.ID, want, m.Cells, m.Box.W, m.Box.H)
		}
	}
	if len(got.Cut) > 0 {
		t.Errorf("chart texts outside their chart: want none, got:\n%s", strings.Join(got.Cut, "\n"))
	}
	if got.ScrollWidth > 1280 {
		t.Errorf("page width: want at most the 1280 px window, got %g", got.ScrollWidth)
	}
}
