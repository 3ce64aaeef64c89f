package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/drasim/drasim/scenarios"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/timeline"
	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/plot"
)

const timelineGoldenDir = "testdata/timeline"

// demoTimeline runs the embedded demo timeline with the expander chain.
func demoTimeline(t *testing.T, expanders ...string) *timeline.Result {
	t.Helper()
	res, err := load.LoadBytes("demo:"+scenarios.TimelineDemoName, scenarios.TimelineDemo(), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := timeline.Prepare(res.Snapshot, res.Files, []timeline.TraceFile{{Name: "demo:" + scenarios.TimelineDemoTraceName, Data: scenarios.TimelineDemoTrace()}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := timeline.Run(context.Background(), in, timeline.Options{
		Autoscale: &autoscale.Options{Expanders: expanders}, ScaleDown: autoscale.DefaultScaleDownOptions(), FragmentationEvery: timeline.DefaultResolution * 12,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var timelineRenderers = []struct {
	ext   string
	write func(io.Writer, *timeline.Result) error
}{
	{"txt", WriteTimelineTable},
	{"md", WriteTimelineMarkdown},
	{"csv", WriteTimelineCSV},
	{"html", WriteTimelineHTML},
}

func TestTimelineRenderersGolden(t *testing.T) {
	r := demoTimeline(t)
	for _, rd := range timelineRenderers {
		var first, second bytes.Buffer
		if err := rd.write(&first, r); err != nil {
			t.Fatalf("%s renderer: %v", rd.ext, err)
		}
		if err := rd.write(&second, r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Errorf("%s renderer: two renderings of the same timeline differ", rd.ext)
		}
		checkGolden(t, filepath.Join(timelineGoldenDir, "demo.golden."+rd.ext), first.Bytes())
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join(timelineGoldenDir, "demo.golden.json"), append(data, '\n'))
}

// provisioningTimeline runs the embedded example "provisioning" as
// drasim timeline --example provisioning does (GenericWorkload on).
func provisioningTimeline(t *testing.T) *timeline.Result {
	t.Helper()
	res, err := load.LoadBytes("example:"+scenarios.TimelineProvisioningName, scenarios.TimelineProvisioning(), load.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	in, err := timeline.Prepare(res.Snapshot, res.Files, nil)
	if err != nil {
		t.Fatal(err)
	}
	gates, err := feature.Parse("GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	r, err := timeline.Run(context.Background(), in, timeline.Options{Sim: sim.Options{Gates: gates},
		Autoscale: &autoscale.Options{}, ScaleDown: autoscale.DefaultScaleDownOptions(), FragmentationEvery: timeline.FragmentationAuto,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTimelineProvisioningGolden: the example's ProvisioningRequests (their
// conditions over time) and its gang's scale-up, in every format.
func TestTimelineProvisioningGolden(t *testing.T) {
	r := provisioningTimeline(t)
	for _, rd := range timelineRenderers {
		var b bytes.Buffer
		if err := rd.write(&b, r); err != nil {
			t.Fatalf("%s renderer: %v", rd.ext, err)
		}
		checkGolden(t, filepath.Join(timelineGoldenDir, "provisioning.golden."+rd.ext), b.Bytes())
		if rd.ext == "html" {
			if err := xml.NewDecoder(bytes.NewReader(b.Bytes())).Decode(new(any)); err != nil {
				t.Errorf("the page is not well-formed XML: %v", err)
			}
			for _, want := range []string{"Provisioning requests", "Provisioning request conditions", "CapacityBookingConsumed"} {
				if !bytes.Contains(b.Bytes(), []byte(want)) {
					t.Errorf("the page lacks %q", want)
				}
			}
		}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join(timelineGoldenDir, "provisioning.golden.json"), append(data, '\n'))
	var back timeline.Result
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.ProvisioningRequests, back.ProvisioningRequests); diff != "" {
		t.Errorf("requests after a JSON round trip (-want +got):\n%s", diff)
	}
}

// TestTimelineJSONRoundTrip: the JSON reads back into the same timeline
// (drasim check --timeline reads it).
func TestTimelineJSONRoundTrip(t *testing.T) {
	r := demoTimeline(t)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back timeline.Result
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, &back); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}

// TestTimelineCSVShape: one row per pod, per sample and per request
// condition, every row as wide as the header.
func TestTimelineCSVShape(t *testing.T) {
	for name, r := range map[string]*timeline.Result{"demo": demoTimeline(t), "provisioning": provisioningTimeline(t)} {
		var b bytes.Buffer
		if err := WriteTimelineCSV(&b, r); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatalf("%s: the CSV does not parse: %v", name, err)
		}
		pods, samples, conditions, wantConditions := 0, 0, 0, 0
		for _, pr := range r.ProvisioningRequests {
			wantConditions += len(pr.Transitions)
		}
		for _, row := range rows[1:] {
			switch row[0] {
			case csvTimelinePod:
				pods++
			case csvTimelineSample:
				samples++
			case csvTimelineRequest:
				conditions++
			default:
				t.Errorf("%s: row of unknown record %q", name, row[0])
			}
		}
		if pods != len(r.Pods) || samples != len(r.Series) || conditions != wantConditions {
			t.Errorf("%s: %d pod, %d sample and %d request rows, want %d, %d and %d", name, pods, samples, conditions, len(r.Pods), len(r.Series), wantConditions)
		}
		if name == "provisioning" && wantConditions == 0 {
			t.Error("the provisioning example gave no request conditions: the test checks nothing")
		}
	}
}

// TestTimelineCSVColumnsByName reads the CSV the way a spreadsheet does,
// by header name, and holds every sample and request row to the values of
// the Timeline (each value under its own header, none under a
// neighbour's).
func TestTimelineCSVColumnsByName(t *testing.T) {
	r := provisioningTimeline(t)
	var b bytes.Buffer
	if err := WriteTimelineCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var samples, requests [][]string
	for _, row := range rows[1:] {
		switch row[0] {
		case csvTimelineSample:
			samples = append(samples, row)
		case csvTimelineRequest:
			requests = append(requests, row)
		}
	}
	if len(samples) != len(r.Series) {
		t.Fatalf("%d sample rows, want %d", len(samples), len(r.Series))
	}
	for i, s := range r.Series {
		row := samples[i]
		for h, want := range map[string]string{
			"time": strconv.FormatFloat(float64(s.Time), 'f', -1, 64), "pending": strconv.Itoa(s.Pending), "running": strconv.Itoa(s.Running),
			"provisioning": strconv.Itoa(s.Provisioning), "cost": strconv.FormatFloat(s.Cost, 'f', -1, 64), "preemptions": "",
		} {
			if row[col[h]] != want {
				t.Errorf("sample %d: column %s = %q, want %q", i, h, row[col[h]], want)
			}
		}
	}
	i := 0
	for _, pr := range r.ProvisioningRequests {
		for _, c := range pr.Transitions {
			row := requests[i]
			i++
			for h, want := range map[string]string{
				"namespace": pr.Namespace, "name": pr.Name, "workload": provReqClass(pr.Class), "phase": c.Type + "=" + c.Status,
				"time": strconv.FormatFloat(float64(c.Time), 'f', -1, 64), "attempts": strconv.Itoa(pr.Tries),
			} {
				if row[col[h]] != want {
					t.Errorf("request %s/%s condition %s: column %s = %q, want %q", pr.Namespace, pr.Name, c.Type, h, row[col[h]], want)
				}
			}
			if !strings.HasPrefix(row[col["message"]], c.Reason) {
				t.Errorf("request %s condition %s: message %q does not start with the reason %q", pr.Name, c.Type, row[col["message"]], c.Reason)
			}
		}
	}
}

// TestTimelineHTMLIsXMLWithCharts: the page parses as XML and has every
// chart drawn.
func TestTimelineHTMLIsXMLWithCharts(t *testing.T) {
	r := demoTimeline(t)
	var b bytes.Buffer
	if err := WriteTimelineHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.Bytes()
	if err := xml.NewDecoder(bytes.NewReader(page)).Decode(new(any)); err != nil {
		t.Fatalf("the page is not well-formed XML: %v", err)
	}
	got := figures(t, page)
	for _, id := range []string{ChartTimelinePods, ChartTimelineNodes, ChartTimelineCostRate, ChartTimelineCost, ChartTimelineDevices, ChartTimelineFragmentation, ChartTimelineAlternatives} {
		if !got[id] {
			t.Errorf("chart %s is missing or has no SVG", id)
		}
	}
}

func TestTimelineComparisonGolden(t *testing.T) {
	cmpr := timeline.NewComparison()
	cmpr.Add("base", nil, demoTimeline(t))
	cmpr.Add("price", []string{"--expander", "price"}, demoTimeline(t, autoscale.ExpanderPrice))
	cmpr.Add("first-available", []string{"--expander", "first-available"}, demoTimeline(t, autoscale.ExpanderFirstAvailable))
	for _, rd := range []struct {
		ext   string
		write func(io.Writer, *timeline.Comparison) error
	}{{"txt", WriteTimelineComparisonTable}, {"md", WriteTimelineComparisonMarkdown}, {"html", WriteTimelineComparisonHTML}} {
		var b bytes.Buffer
		if err := rd.write(&b, cmpr); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, filepath.Join(timelineGoldenDir, "compare.golden."+rd.ext), b.Bytes())
		if rd.ext == "html" {
			got := figures(t, b.Bytes())
			for _, id := range []string{ChartTimelinePods, ChartTimelineNodes, ChartTimelineCost, ChartTimelineAlternatives} {
				if !got[id] {
					t.Errorf("comparison chart %s is missing", id)
				}
			}
			if !strings.Contains(b.String(), "first-available") {
				t.Errorf("the comparison page does not name the runs")
			}
		}
	}
}

// TestTimelineCheckMarkdownGolden renders gates checked on the demo
// timeline: the verdicts, then the timeline's markdown.
func TestTimelineCheckMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTimelineCheckMarkdown(&b, gateResults, demoTimeline(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join(timelineGoldenDir, "check.golden.md"), b.Bytes())
}

// TestWaitTableNoPlacedPod: a workload none of whose pods was placed has
// no wait: "-", not 0s.
func TestWaitTableNoPlacedPod(t *testing.T) {
	ten := timeline.Seconds(600)
	rows := []timeline.WaitRow{
		{Workload: "huge", NeverPlaced: 2},
		{Workload: "train", WaitStats: timeline.WaitStats{Pods: 1, P50: &ten, P95: &ten, P99: &ten, Max: &ten, Mean: &ten}},
	}
	got := waitTable(rows, "Workload", func(w timeline.WaitRow) string { return w.Workload }).Rows
	want := [][]string{{"huge", "0", "-", "-", "-", "-", "2"}, {"train", "1", "10m0s", "10m0s", "10m0s", "10m0s", "0"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wait table (-want +got):\n%s", diff)
	}
}

func TestNiceTicks(t *testing.T) {
	labels := func(tk plot.Ticker, lo, hi float64) string {
		var out []string
		for _, t := range tk.Ticks(lo, hi) {
			out = append(out, t.Label)
		}
		return strings.Join(out, " ")
	}
	for _, tt := range []struct {
		name   string
		ticker plot.Ticker
		lo, hi float64
		want   string
	}{
		{"a day in hours", niceTicks{}, 0, 28.3, "0 5 10 15 20 25"},
		{"four hours", niceTicks{}, 0, 4.9, "0 1 2 3 4"},
		{"under an hour", niceTicks{}, 0, 0.89, "0.0 0.2 0.4 0.6 0.8"},
		{"one node", wholeTicks{}, 0, 1, "0 1"},
		{"three nodes", wholeTicks{}, 0, 3, "0 1 2 3"},
		{"pods", wholeTicks{}, 0, 33, "0 10 20 30"},
		{"flat", wholeTicks{}, 0, 0, "0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := labels(tt.ticker, tt.lo, tt.hi); got != tt.want {
				t.Errorf("ticks of [%g, %g]: want %q, got %q", tt.lo, tt.hi, tt.want, got)
			}
		})
	}
}
