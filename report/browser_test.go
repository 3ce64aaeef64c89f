package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
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
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/timeline"
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
  const out = {scrollWidth: document.documentElement.scrollWidth, charts: [], maps: [], cut: [], covered: [], mapGap: null, fractions: []};
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
  // Texts (legends, labels) that a line of a chart runs through: the
  // lines are the 1.5 pt paths longer than a legend's thumbnail.
  for (const fig of document.querySelectorAll('figure')) {
    const svg = fig.querySelector('svg');
    if (!svg) continue;
    const texts = [...svg.querySelectorAll('text')].map(t => ({t: t.textContent, b: box(t)}));
    for (const path of svg.querySelectorAll('path')) {
      if (!/stroke-width:1.5\b/.test(path.getAttribute('style') || '') || path.getBBox().width <= 25) continue;
      const m = path.getScreenCTM(), len = path.getTotalLength();
      const hit = new Set();
      for (let d = 0; d <= len; d += 0.5) {
        const p = new DOMPoint(path.getPointAtLength(d).x, path.getPointAtLength(d).y).matrixTransform(m);
        for (const t of texts) {
          if (p.x > t.b.l + 1 && p.x < t.b.r - 1 && p.y > t.b.t + 1 && p.y < t.b.b - 1) hit.add(t.t);
        }
      }
      for (const t of hit) out.covered.push(fig.id + ': "' + t + '"');
    }
  }
  for (const m of document.querySelectorAll('.devicemap')) {
    out.maps.push({id: m.id, box: box(m), cells: m.querySelectorAll('.cell').length});
  }
  // Room between the device maps and what follows them.
  const maps = document.getElementById('device-map');
  if (maps && maps.nextElementSibling) {
    const next = maps.nextElementSibling.querySelector('figcaption, h2') || maps.nextElementSibling;
    out.mapGap = box(next).t - box(maps).b;
  }
  // Y axis labels of the count charts, which must be whole numbers.
  for (const id of ['chart-pods', 'chart-nodes']) {
    const svg = document.querySelector('#' + id + ' svg');
    if (!svg) continue;
    // The numbers of the lowest row are the hours of the X axis.
    const numbers = [...svg.querySelectorAll('text')].filter(t => /^-?[0-9.]+$/.test(t.textContent));
    const lowest = Math.max(...numbers.map(t => box(t).t));
    for (const t of numbers) {
      if (box(t).t < lowest - 2 && !/^-?[0-9]+$/.test(t.textContent)) out.fractions.push(id + ': ' + t.textContent);
    }
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
	// Covered are the texts a chart's line runs through; MapGap the room
	// below the device maps (nil without); Fractions the labels of count
	// axes that are not whole numbers.
	Covered   []string `json:"covered"`
	MapGap    *float64 `json:"mapGap"`
	Fractions []string `json:"fractions"`
}

// TestHTMLReportInBrowser loads the HTML report in headless Chromium at
// 1280 px: no console error, every chart and both device maps drawn with a
// size, every chart label inside its chart, nothing wider than the window.
func TestHTMLReportInBrowser(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCapacityHTML(&b, browserReport(t)); err != nil {
		t.Fatalf("WriteCapacityHTML: %v", err)
	}
	got := inBrowser(t, "report", b.Bytes())
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
}

// inBrowser loads an HTML page in headless Chromium at 1280 px and
// measures it; it fails the test on a console error, a chart text outside
// its chart, overlapping boxes (headings, device maps, charts) and a page
// wider than the window. With DRASIM_SCREENSHOTS=DIR it saves the page as
// DIR/NAME.png, to look at.
func inBrowser(t *testing.T, name string, html []byte) pageLayout {
	t.Helper()
	bin := chromium(t)
	page := filepath.Join(t.TempDir(), name+".html")
	if err := os.WriteFile(page, html, 0o644); err != nil {
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
	if dir := os.Getenv("DRASIM_SCREENSHOTS"); dir != "" {
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		saveScreenshot(t, filepath.Join(dir, name), shot)
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
	if len(got.Cut) > 0 {
		t.Errorf("chart texts outside their chart: want none, got:\n%s", strings.Join(got.Cut, "\n"))
	}
	if len(got.Covered) > 0 {
		t.Errorf("chart texts that a line runs through: want none, got:\n%s", strings.Join(got.Covered, "\n"))
	}
	if len(got.Fractions) > 0 {
		t.Errorf("count axes: want whole numbers only, got:\n%s", strings.Join(got.Fractions, "\n"))
	}
	if got.MapGap != nil && *got.MapGap < 16 {
		t.Errorf("device maps: want at least 16 px before what follows, got %g px", *got.MapGap)
	}
	if got.ScrollWidth > 1280 {
		t.Errorf("page width: want at most the 1280 px window, got %g", got.ScrollWidth)
	}
	return got
}

// TestTimelineHTMLInBrowser loads timeline pages in headless Chromium:
// the demo's, and one of a group scaled up to one node and back to zero
// (few pods and nodes: axes of small counts). Every chart is drawn, its
// texts inside it and clear of its lines, count axes in whole numbers, no
// console error.
func TestTimelineHTMLInBrowser(t *testing.T) {
	page := func(r *timeline.Result) func(io.Writer) error {
		return func(w io.Writer) error { return WriteTimelineHTML(w, r) }
	}
	for _, tc := range []struct {
		name  string
		write func(*testing.T) func(io.Writer) error
	}{
		{"timeline-demo", func(t *testing.T) func(io.Writer) error { return page(demoTimeline(t)) }},
		{"timeline-scaleup", func(t *testing.T) func(io.Writer) error { return page(scaleUpTimeline(t)) }},
		{"timeline-compare", func(t *testing.T) func(io.Writer) error {
			c := timeline.NewComparison()
			c.Add("base", nil, demoTimeline(t))
			c.Add("price", []string{"--expander", "price"}, demoTimeline(t, autoscale.ExpanderPrice))
			return func(w io.Writer) error { return WriteTimelineComparisonHTML(w, c) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(t)(&b); err != nil {
				t.Fatalf("writing the page: %v", err)
			}
			got := inBrowser(t, tc.name, b.Bytes())
			drawn := 0
			for _, c := range got.Charts {
				if c.SVG {
					drawn++
				}
				if c.Box.W <= 0 || c.Box.H <= 0 {
					t.Errorf("chart %s: want a size, got %gx%g", c.ID, c.Box.W, c.Box.H)
				}
			}
			// Without prioritized lists the last chart says so instead.
			if drawn < len(got.Charts)-1 || drawn < 4 {
				t.Errorf("charts: want at least %d drawn, got %d", max(4, len(got.Charts)-1), drawn)
			}
		})
	}
}

// scaleUpTimeline is sim/timeline's testdata/scaleup.yaml with the
// autoscaler: group gpu from 0 nodes to 1 and back to 0.
func scaleUpTimeline(t *testing.T) *timeline.Result {
	t.Helper()
	res, err := load.Load([]string{"../sim/timeline/testdata/scaleup.yaml"}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := timeline.Prepare(res.Snapshot, res.Files, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := timeline.Run(context.Background(), in, timeline.Options{Autoscale: &autoscale.Options{}, ScaleDown: autoscale.DefaultScaleDownOptions(), FragmentationEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// saveScreenshot writes a full-page screenshot as tiles of at most 1000
// pixels' height, PREFIX-1.png, PREFIX-2.png, ..., small enough to look at.
func saveScreenshot(t *testing.T, prefix string, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	for i, y := 1, b.Min.Y; y < b.Max.Y; i, y = i+1, y+1000 {
		tile := img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(b.Min.X, y, b.Max.X, min(y+1000, b.Max.Y)))
		var out bytes.Buffer
		if err := png.Encode(&out, tile); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fmt.Sprintf("%s-%d.png", prefix, i), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
