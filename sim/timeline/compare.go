package timeline

import "strings"

// ComparisonKind is the kind of a serialized comparison.
const ComparisonKind = "TimelineComparison"

// Comparison puts timelines of the same arrivals under different settings
// (expander chains, scale-down settings, scheduler configurations, node
// group sets) side by side.
type Comparison struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Entries    []ComparisonEntry `json:"entries"`
}

// ComparisonEntry is one timeline summed up, with its time series for the
// overlaid charts.
type ComparisonEntry struct {
	Name      string   `json:"name"`
	Settings  string   `json:"settings"`
	Expanders []string `json:"expanders,omitempty"`
	Summary   Summary  `json:"summary"`
	End       Seconds  `json:"end"`
	Series    []Sample `json:"series"`
}

// NewComparison returns an empty comparison.
func NewComparison() *Comparison {
	return &Comparison{APIVersion: APIVersion, Kind: ComparisonKind, Entries: []ComparisonEntry{}}
}

// Add sums up a timeline run with the given settings (as the user wrote
// them).
func (c *Comparison) Add(name string, settings []string, r *Result) {
	e := ComparisonEntry{Name: name, Settings: strings.Join(settings, " "), Summary: r.Summary, End: r.Inputs.End, Series: r.Series}
	if a := r.Inputs.Autoscaler; a != nil {
		e.Expanders = a.Expanders
	}
	c.Entries = append(c.Entries, e)
}
