package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/golden"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/load"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

const capacityGoldenDir = "testdata/capacity"

// capacityRenderers are the renderers with golden files, by the golden
// file's extension.
var capacityRenderers = []struct {
	ext   string
	write func(io.Writer, *analysis.Report) error
}{
	{"txt", WriteCapacityTable},
	{"md", WriteCapacityMarkdown},
	{"json", WriteCapacityJSON},
	{"yaml", WriteCapacityYAML},
	{"csv", WriteCapacityCSV},
	{"html", WriteCapacityHTML},
}

// capacityInputs globs testdata/capacity/*.input.yaml; a <name>.probe.yaml
// next to an input is its workload mix.
func capacityInputs(t *testing.T) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(capacityGoldenDir, "*.input.yaml"))
	if err != nil {
		t.Fatalf("glob: want no error, got: %v", err)
	}
	if len(matches) == 0 {
		t.Fatalf("want inputs in %s, got none", capacityGoldenDir)
	}
	sort.Strings(matches)
	return matches
}

func capacityReport(t *testing.T, input string) *analysis.Report {
	t.Helper()
	res, err := load.Load([]string{input}, load.Options{})
	if err != nil {
		t.Fatalf("loading %s: want no error, got:\n%v", input, err)
	}
	run, err := sim.Simulate(context.Background(), res.Snapshot, sim.Options{})
	if err != nil {
		t.Fatalf("Simulate(%s): want no error, got: %v", input, err)
	}
	var opts analysis.Options
	probe := strings.TrimSuffix(input, ".input.yaml") + ".probe.yaml"
	if _, err := os.Stat(probe); err == nil {
		pr, err := load.Load([]string{probe}, load.Options{})
		if err != nil {
			t.Fatalf("loading %s: want no error, got:\n%v", probe, err)
		}
		opts.Probes = pr.Snapshot
	}
	rep, err := analysis.Analyze(context.Background(), run, opts)
	if err != nil {
		t.Fatalf("Analyze(%s): want no error, got: %v", input, err)
	}
	rep.DeviceMap = analysis.DeviceMapOf(context.Background(), run.Cluster, "")
	// As drasim report does for a snapshot with autoscaling requests.
	if rep.Autoscaling, err = autoscale.Assess(context.Background(), res.Snapshot, autoscale.Options{}); err != nil {
		t.Fatalf("Assess(%s): want no error, got: %v", input, err)
	}
	return rep
}

// pageStylesheet is the stylesheet every HTML page shares (pageTemplate's
// <style>): its golden files hold a marker instead, and
// testdata/page.golden.css holds it once.
var pageStylesheet = golden.Shared{
	Path:   filepath.Join("testdata", "page.golden.css"),
	Start:  "<style>\n",
	End:    "</style>",
	Marker: "/* the stylesheet of every page: testdata/page.golden.css */\n",
}

// checkGolden checks a renderer's output against its golden file; an HTML
// page's stylesheet against pageStylesheet's.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if strings.HasSuffix(path, ".html") {
		golden.Check(t, path, got, golden.WithShared(pageStylesheet))
		return
	}
	golden.Check(t, path, got)
}

func TestCapacityRenderersGolden(t *testing.T) {
	for _, input := range capacityInputs(t) {
		name := strings.TrimSuffix(filepath.Base(input), ".input.yaml")
		t.Run(name, func(t *testing.T) {
			rep := capacityReport(t, input)
			for _, r := range capacityRenderers {
				var first, second bytes.Buffer
				if err := r.write(&first, rep); err != nil {
					t.Fatalf("%s renderer: want no error, got: %v", r.ext, err)
				}
				if err := r.write(&second, rep); err != nil {
					t.Fatalf("%s renderer: want no error, got: %v", r.ext, err)
				}
				if !bytes.Equal(first.Bytes(), second.Bytes()) {
					t.Fatalf("%s renderer: two renderings differ (map order leaking into output?)", r.ext)
				}
				checkGolden(t, filepath.Join(capacityGoldenDir, name+".golden."+r.ext), first.Bytes())
			}
		})
	}
}

// The structured outputs must read back into the same report.
func TestCapacityStructuredRoundTrip(t *testing.T) {
	rep := capacityReport(t, filepath.Join(capacityGoldenDir, "frag-basic.input.yaml"))
	var js, ys bytes.Buffer
	if err := WriteCapacityJSON(&js, rep); err != nil {
		t.Fatalf("WriteCapacityJSON: %v", err)
	}
	if err := WriteCapacityYAML(&ys, rep); err != nil {
		t.Fatalf("WriteCapacityYAML: %v", err)
	}
	var fromJSON, fromYAML analysis.Report
	if err := json.Unmarshal(js.Bytes(), &fromJSON); err != nil {
		t.Fatalf("reading the JSON back: %v", err)
	}
	if err := yaml.UnmarshalStrict(ys.Bytes(), &fromYAML); err != nil {
		t.Fatalf("reading the YAML back: %v", err)
	}
	// The device maps are drawn in HTML only.
	rep.DeviceMap = nil
	if diff := cmp.Diff(*rep, fromJSON); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(*rep, fromYAML); diff != "" {
		t.Errorf("YAML round trip (-want +got):\n%s", diff)
	}
}

func TestCapacityCSVShape(t *testing.T) {
	rep := capacityReport(t, filepath.Join(capacityGoldenDir, "frag-basic.input.yaml"))
	var b bytes.Buffer
	if err := WriteCapacityCSV(&b, rep); err != nil {
		t.Fatalf("WriteCapacityCSV: %v", err)
	}
	records, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("reading the CSV back: %v", err)
	}
	pods, nodes := 0, 0
	for _, rec := range records[1:] {
		switch rec[0] {
		case csvPod:
			pods++
		case csvNode:
			nodes++
		default:
			t.Errorf("record kind: want pod or node, got %q", rec[0])
		}
	}
	if pods != len(rep.Pods) || nodes != len(rep.Nodes) {
		t.Errorf("rows: want %d pods and %d nodes, got %d and %d", len(rep.Pods), len(rep.Nodes), pods, nodes)
	}
}

// The HTML report must be well-formed XML (so any XML tool can read it)
// and hold a figure per chart, with an inline SVG where there is data.
func TestCapacityHTMLIsXMLWithCharts(t *testing.T) {
	tests := []struct {
		input string
		// charts maps each figure ID to whether it must hold an SVG.
		charts map[string]bool
	}{
		{"demo.input.yaml", map[string]bool{ChartUtilization: true, ChartFragmentation: false, ChartHeadroom: true, ChartPrioritizedList: true}},
		{"mig.input.yaml", map[string]bool{ChartUtilization: true, ChartFragmentation: true, ChartHeadroom: true, ChartPrioritizedList: false}},
	}
	for _, tc := range tests {
		t.Run(tc.input, func(t *testing.T) {
			rep := capacityReport(t, filepath.Join(capacityGoldenDir, tc.input))
			var b bytes.Buffer
			if err := WriteCapacityHTML(&b, rep); err != nil {
				t.Fatalf("WriteCapacityHTML: %v", err)
			}
			got := figures(t, b.Bytes())
			if diff := cmp.Diff(tc.charts, got); diff != "" {
				t.Errorf("figures and whether they hold an SVG (-want +got):\n%s", diff)
			}
		})
	}
}

// figures parses the page as XML and returns, per figure ID, whether the
// figure holds an <svg> element.
func figures(t *testing.T, page []byte) map[string]bool {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict = true
	out := map[string]bool{}
	current := ""
	depth := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the HTML report is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			depth++
			if el.Name.Local == "figure" {
				for _, a := range el.Attr {
					if a.Name.Local == "id" {
						current = a.Value
						out[current] = false
					}
				}
			}
			if el.Name.Local == "svg" && current != "" {
				if el.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("figure %s: <svg> namespace: want the SVG namespace, got %q", current, el.Name.Space)
				}
				out[current] = true
			}
		case xml.EndElement:
			depth--
			if el.Name.Local == "figure" {
				current = ""
			}
		}
	}
	if depth != 0 {
		t.Errorf("unbalanced elements: depth %d at the end", depth)
	}
	return out
}

// A largest request that is only a lower bound shows as such in the
// tables, as a capped headroom does.
func TestCapacityTableMarksLowerBoundLargestRequest(t *testing.T) {
	rep := &analysis.Report{LargestRequests: []analysis.LargestRequest{
		{Class: "exact.example.com", Devices: 4, Node: "n1", Available: 9},
		{Class: "bound.example.com", Devices: 3, Node: "n2", Available: 12, AtLeast: true},
	}}
	var buf bytes.Buffer
	if err := WriteCapacityTable(&buf, rep); err != nil {
		t.Fatalf("WriteCapacityTable: want no error, got %v", err)
	}
	for _, want := range []string{"exact.example.com   4 ", "bound.example.com   >=3 "} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("want a row containing %q, got:\n%s", want, buf.String())
		}
	}
}
