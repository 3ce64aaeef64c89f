package app

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/drasim/drasim/sim/timeline"
	"github.com/google/go-cmp/cmp"
)

// TestTimelineProgressLog: off a terminal, -v 1 logs how far the run is
// (simulated time, events, pending pods) at every tenth of its span;
// without -v, standard error has no progress.
func TestTimelineProgressLog(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	line := regexp.MustCompile(`(?m)^timeline: \S+ of 4h40m simulated, \d+ events, \d+ pending, \d+ running, `)
	code, _, stderr := runDrasim(t, "timeline", "-v", "1", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	if got := len(line.FindAllString(stderr, -1)); got < 9 || got > 10 {
		t.Errorf("%d progress lines at -v 1, want one per tenth of the span (9 or 10); stderr:\n%s", got, stderr)
	}
	if !strings.Contains(stderr, "timeline: 4h40m of 4h40m simulated") {
		t.Errorf("no line at the end of the expected span; stderr:\n%s", stderr)
	}
	code, _, stderr = runDrasim(t, "timeline", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	if line.MatchString(stderr) {
		t.Errorf("progress without -v off a terminal; stderr:\n%s", stderr)
	}
}

// TestTimelineAutoSteps: unset, the series and fragmentation steps follow
// the horizon; a value given wins, 0 turns fragmentation off, and a
// resolution of 0 is refused.
func TestTimelineAutoSteps(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	demo := "../../../scenarios/00-demo.yaml"
	tests := []struct {
		name                  string
		args                  []string
		resolution, fragEvery timeline.Seconds
	}{
		{"the embedded demo: 5m, hourly", nil, 300, 3600},
		{"ten days: 10m, every 2h", []string{"-f", demo, "--duration", "240h"}, 600, 7200},
		{"ten days, given steps", []string{"-f", demo, "--duration", "240h", "--resolution", "5m", "--fragmentation-every", "1h"}, 300, 3600},
		{"ten days, no fragmentation", []string{"-f", demo, "--duration", "240h", "--fragmentation-every", "0"}, 600, 0},
		{"auto spelled out", []string{"-f", demo, "--duration", "240h", "--resolution", "auto", "--fragmentation-every", "auto"}, 600, 7200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runDrasim(t, append([]string{"timeline", "-o", "json"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
			}
			var res timeline.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			got := []timeline.Seconds{res.Inputs.Resolution, res.Inputs.FragmentationEvery}
			if diff := cmp.Diff([]timeline.Seconds{tc.resolution, tc.fragEvery}, got); diff != "" {
				t.Errorf("resolution and fragmentationEvery (-want +got):\n%s", diff)
			}
		})
	}
	code, _, stderr := runDrasim(t, "timeline", "--resolution", "0")
	if code != ExitUsage || !strings.Contains(stderr, "--resolution must be positive") {
		t.Errorf("--resolution 0: exit %d, stderr %q; want a usage error saying it must be positive", code, stderr)
	}
}

func TestTimelineProgressLine(t *testing.T) {
	p := &timelineProgress{name: "price"}
	got := p.line(timeline.Progress{Now: 30 * 24 * time.Hour, End: 120 * 24 * time.Hour, Events: 812, Pending: 3, Running: 40, Arrived: 100, Arrivals: 400}, 120*24*time.Hour, 2*time.Second)
	// A quarter of the time and of the arrivals: three times as long again.
	want := "timeline price: 30d0h of 120d0h simulated, 812 events, 3 pending, 40 running, 2s, ETA 6s"
	if got != want {
		t.Errorf("line:\n got %q\nwant %q", got, want)
	}
	// Most arrivals still to come: the ETA follows them, not the clock.
	got = p.line(timeline.Progress{Now: 90 * 24 * time.Hour, End: 120 * 24 * time.Hour, Arrived: 100, Arrivals: 1000}, 120*24*time.Hour, 10*time.Second)
	if !strings.HasSuffix(got, "ETA 1m30s") {
		t.Errorf("line %q: want an ETA of 1m30s (a tenth of the arrivals in after 10s)", got)
	}
	for d, want := range map[time.Duration]string{45 * time.Second: "45s", 3*time.Hour + 20*time.Minute: "3h20m", 149*24*time.Hour + 2*time.Hour: "149d2h", 90 * time.Second: "1m30s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
}
