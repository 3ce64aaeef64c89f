package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/timeline"
)

// maxSeriesRows bounds the time series in the table and markdown reports;
// -o csv and json have every sample.
const maxSeriesRows = 25

// durationCell renders seconds for people: 45s, 3m10s, 2h5m0s.
func durationCell(s timeline.Seconds) string {
	d := s.Duration()
	if d < time.Minute {
		return strconv.FormatFloat(float64(s), 'f', -1, 64) + "s"
	}
	return d.Round(time.Second).String()
}

func optDuration(s *timeline.Seconds) string {
	if s == nil {
		return "-"
	}
	return durationCell(*s)
}

// rankCounts renders counts by prioritized-list rank: "1st 12, 2nd 3".
func rankCounts(counts []int) string {
	var parts []string
	for i, n := range counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", ordinal(i+1), n))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func shareOf(counts []int) string {
	total := 0
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return "-"
	}
	return pct(float64(counts[0]) / float64(total))
}

func timelineHeadline(r *timeline.Result) string {
	in := r.Inputs
	scaler := "autoscaler off"
	if a := in.Autoscaler; a != nil {
		scaler = "autoscaler " + strings.Join(a.Expanders, ",")
		if a.ScaleDown == nil {
			scaler += ", no scale-down"
		}
	}
	note := tieBreakNote(in.TieBreak, in.Seed)
	if a := in.Autoscaler; note == "" && a != nil && slices.Contains(a.Expanders, "random") {
		note = fmt.Sprintf(", seed %d", in.Seed) // the random expander's
	}
	return fmt.Sprintf("Timeline of %s: %d node(s) at the start, %d arrival(s), %s (kube-scheduler %s%s).",
		durationCell(in.End), in.Nodes, in.Arrivals, scaler, in.KubernetesVersion, note)
}

// timelineFacts are the key numbers, first in every format.
func timelineFacts(r *timeline.Result) []string {
	s := r.Summary
	w := s.Wait
	facts := []string{
		fmt.Sprintf("Pods: %d followed, %d placed, %d finished, %d running and %d pending at the end (%d never placed), %d eviction(s), %d preemption(s)",
			s.Pods, s.Placed, s.Finished, s.Running, s.Pending, s.NeverPlaced, s.Evictions, s.Preemptions),
		fmt.Sprintf("Wait from arrival to binding (%d placed pods): p50 %s, p95 %s, p99 %s, max %s",
			w.Pods, optDuration(w.P50), optDuration(w.P95), optDuration(w.P99), optDuration(w.Max)),
		fmt.Sprintf("Cost: %s for %s node-hours; %d scale-up(s) adding %d node(s), %d scale-down(s)",
			money(s.Cost), strconv.FormatFloat(s.NodeHours, 'f', 2, 64), s.ScaleUps, s.NodesAdded, s.ScaleDowns),
		fmt.Sprintf("Prioritized-list requests by alternative: %s (first choice %s)", rankCounts(s.Alternatives), shareOf(s.Alternatives)),
	}
	return facts
}

func waitTable(rows []timeline.WaitRow, first string, name func(timeline.WaitRow) string) Table {
	t := Table{Header: []string{first, "Placed", "P50", "P95", "P99", "Max", "Never placed"}}
	for _, w := range rows {
		t.Append(name(w), fmt.Sprint(w.Pods), optDuration(w.P50), optDuration(w.P95), optDuration(w.P99), optDuration(w.Max), fmt.Sprint(w.NeverPlaced))
	}
	return t
}

// seriesRows picks at most limit samples, evenly, always the last.
func seriesRows(series []timeline.Sample, limit int) ([]timeline.Sample, int) {
	if len(series) <= limit || limit <= 1 {
		return series, 1
	}
	step := (len(series) + limit - 2) / (limit - 1)
	var out []timeline.Sample
	for i := 0; i < len(series); i += step {
		out = append(out, series[i])
	}
	if out[len(out)-1].Time != series[len(series)-1].Time {
		out = append(out, series[len(series)-1])
	}
	return out, step
}

func nodesCell(s timeline.Sample) string {
	total := 0
	var parts []string
	for _, g := range s.Nodes {
		total += g.Nodes
		parts = append(parts, fmt.Sprintf("%s %d", g.Group, g.Nodes))
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

func devicesInUse(s timeline.Sample) string {
	var parts []string
	for _, d := range s.Devices {
		if d.Devices > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", d.Class, d.Allocated, d.Devices))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func fragCell(f *float64) string {
	if f == nil {
		return "-"
	}
	return pct(*f)
}

func timelineSections(r *timeline.Result, seriesLimit int) []section {
	var out []section
	s := r.Summary
	out = append(out, section{title: "Wait by workload", intro: "Time from arrival to binding of the pods that arrived pending (nearest-rank percentiles).",
		table: waitTable(s.ByWorkload, "Workload", func(w timeline.WaitRow) string { return w.Workload }), empty: "No pod arrived pending."})
	out = append(out, section{title: "Wait by priority",
		table: waitTable(s.ByPriority, "Priority", func(w timeline.WaitRow) string { return fmt.Sprint(*w.Priority) }), empty: "No pod arrived pending."})

	groups := Table{Header: []string{"Group", "Node-hours", "Cost", "Scale-ups", "Nodes added", "Scale-downs", "Max nodes"}}
	for _, g := range s.Groups {
		groups.Append(g.Group, strconv.FormatFloat(g.NodeHours, 'f', 2, 64), money(g.Cost), fmt.Sprint(g.ScaleUps), fmt.Sprint(g.NodesAdded), fmt.Sprint(g.ScaleDowns), fmt.Sprint(g.MaxNodes))
	}
	out = append(out, section{title: "Node groups", intro: "Nodes of no group are <none>; nodes are billed from the scale-up to their deletion.", table: groups, empty: "No nodes."})

	ups := Table{Header: []string{"Time", "Group", "Nodes", "Ready", "Chosen by", "Options", "Pods"}}
	for _, u := range r.ScaleUps {
		ups.Append(durationCell(u.Time), u.Group, fmt.Sprint(len(u.Nodes)), durationCell(u.Ready), orDash(u.By), strings.Join(u.Options, ", "), fmt.Sprint(u.Triggered))
	}
	out = append(out, section{title: "Scale-ups", table: ups, empty: "None."})
	downs := Table{Header: []string{"Time", "Node", "Group", "Unneeded for", "Evicted"}}
	for _, d := range r.ScaleDowns {
		downs.Append(durationCell(d.Time), d.Node, d.Group, durationCell(d.UnneededFor), fmt.Sprint(d.Evicted))
	}
	out = append(out, section{title: "Scale-downs", table: downs, empty: "None."})
	if len(r.ProvisioningRequests) > 0 {
		out = append(out, provReqSections(r.ProvisioningRequests)...)
	}

	rows, step := seriesRows(r.Series, seriesLimit)
	series := Table{Header: []string{"Time", "Pending", "Running", "Nodes", "Provisioning", "Cost/h", "Cost", "Devices in use", "Fragmentation", "First choice"}}
	for _, smp := range rows {
		series.Append(durationCell(smp.Time), fmt.Sprint(smp.Pending), fmt.Sprint(smp.Running), nodesCell(smp), fmt.Sprint(smp.Provisioning),
			money(smp.CostRate), money(smp.Cost), devicesInUse(smp), fragCell(smp.Fragmentation), shareOf(smp.Alternatives))
	}
	intro := fmt.Sprintf("Every %s.", durationCell(r.Inputs.Resolution))
	if step > 1 {
		intro = fmt.Sprintf("One sample in %d (every %s); -o csv or json have all %d.", step, durationCell(timeline.Seconds(float64(r.Inputs.Resolution)*float64(step))), len(r.Series))
	}
	out = append(out, section{title: "Time series", intro: intro, table: series, empty: "No samples."})

	never := Table{Header: []string{"Pod", "Workload", "Arrival", "Waited", "Attempts", "Why"}}
	for _, p := range r.Pods {
		if p.Phase == timeline.PhasePending && p.Bound == nil && p.Evictions == 0 && p.Preemptions == 0 {
			never.Append(p.Namespace+"/"+p.Name, p.Workload, durationCell(p.Arrival), durationCell(p.Wait), fmt.Sprint(p.Attempts), orDash(p.Message))
		}
	}
	out = append(out, section{title: "Never placed", table: never, empty: "Every pod was placed."})
	return out
}

// WriteTimelineTable renders a timeline for a terminal.
func WriteTimelineTable(w io.Writer, r *timeline.Result) error {
	var b bytes.Buffer
	fmt.Fprintln(&b, timelineHeadline(r))
	for _, f := range timelineFacts(r) {
		fmt.Fprintf(&b, "%s.\n", f)
	}
	for _, s := range timelineSections(r, maxSeriesRows) {
		fmt.Fprintf(&b, "\n%s\n", strings.ToUpper(s.title))
		if s.intro != "" {
			fmt.Fprintln(&b, s.intro)
		}
		if len(s.table.Rows) == 0 {
			fmt.Fprintln(&b, s.empty)
			continue
		}
		if err := s.table.Write(&b); err != nil {
			return err
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteTimelineMarkdown renders a timeline for a pull request or a CI
// job summary.
func WriteTimelineMarkdown(w io.Writer, r *timeline.Result) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## drasim timeline\n\n%s\n\n", markdownCell(timelineHeadline(r)))
	for _, f := range timelineFacts(r) {
		fmt.Fprintf(&b, "- %s\n", markdownCell(f))
	}
	for _, s := range timelineSections(r, maxSeriesRows) {
		fmt.Fprintf(&b, "\n### %s\n\n", s.title)
		if s.intro != "" {
			fmt.Fprintf(&b, "%s\n\n", markdownCell(s.intro))
		}
		if len(s.table.Rows) == 0 {
			fmt.Fprintf(&b, "%s\n", s.empty)
			continue
		}
		writeMarkdownTable(&b, s.table)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(&b, "\n### Warnings\n\n")
		for _, warn := range r.Warnings {
			fmt.Fprintf(&b, "- %s\n", markdownCell(warn))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Timeline CSV record kinds.
const (
	csvTimelinePod    = "pod"
	csvTimelineSample = "sample"
	// csvTimelineRequest is one condition a ProvisioningRequest was given
	// (timelineRequestRow).
	csvTimelineRequest = "provisioning-request"
)

var timelineCSVHeader = []string{
	"record", "time", "namespace", "name", "workload", "priority", "phase", "arrival", "first_attempt", "bound", "finished", "wait", "attempts",
	"node", "devices", "alternatives", "evictions", "preemptions", "pending", "running", "nodes", "provisioning", "cost_rate", "cost", "devices_allocated",
	"devices_total", "fragmentation", "first_choice", "message",
}

func secondsField(s *timeline.Seconds) string {
	if s == nil {
		return ""
	}
	return strconv.FormatFloat(float64(*s), 'f', -1, 64)
}

// csvLine lays out a row given by column name under the header, the record
// kind in the first column, so a value cannot land under its neighbour's
// header. A name not in the header is a programming error.
func csvLine(header []string, record string, values map[string]string) []string {
	line := make([]string, len(header))
	line[0] = record
	placed := 0
	for i, h := range header {
		if v, ok := values[h]; ok {
			line[i] = v
			placed++
		}
	}
	if placed != len(values) {
		panic(fmt.Sprintf("report: a CSV row names a column not in the header %v: %v", header, values))
	}
	return line
}

// WriteTimelineCSV writes one row per pod, one per sample and one per
// condition a ProvisioningRequest was given, under a single header; the
// record column says which, columns that do not apply are empty; times are
// seconds from the start.
func WriteTimelineCSV(w io.Writer, r *timeline.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(timelineCSVHeader); err != nil {
		return err
	}
	for _, p := range r.Pods {
		if err := cw.Write(csvLine(timelineCSVHeader, csvTimelinePod, timelinePodRow(p))); err != nil {
			return err
		}
	}
	for _, s := range r.Series {
		if err := cw.Write(csvLine(timelineCSVHeader, csvTimelineSample, timelineSampleRow(s))); err != nil {
			return err
		}
	}
	for _, pr := range r.ProvisioningRequests {
		for _, c := range pr.Transitions {
			if err := cw.Write(csvLine(timelineCSVHeader, csvTimelineRequest, timelineRequestRow(pr, c))); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func timelinePodRow(p timeline.PodRecord) map[string]string {
	ranks := make([]string, len(p.Alternatives))
	for i, a := range p.Alternatives {
		ranks[i] = strconv.Itoa(a)
	}
	arrival := p.Arrival
	return map[string]string{
		"namespace": p.Namespace, "name": p.Name, "workload": p.Workload, "priority": fmt.Sprint(p.Priority), "phase": p.Phase,
		"arrival": secondsField(&arrival), "first_attempt": secondsField(p.FirstAttempt), "bound": secondsField(p.Bound),
		"finished": secondsField(p.Finished), "wait": strconv.FormatFloat(float64(p.Wait), 'f', -1, 64), "attempts": fmt.Sprint(p.Attempts),
		"node": p.Node, "devices": strings.Join(p.Devices, " "), "alternatives": strings.Join(ranks, " "),
		"evictions": fmt.Sprint(p.Evictions), "preemptions": fmt.Sprint(p.Preemptions), "message": p.Message,
	}
}

func timelineSampleRow(s timeline.Sample) map[string]string {
	nodes := 0
	for _, g := range s.Nodes {
		nodes += g.Nodes
	}
	alloc, total := 0, 0
	for _, d := range s.Devices {
		alloc += d.Allocated
		total += d.Devices
	}
	frag := ""
	if s.Fragmentation != nil {
		frag = strconv.FormatFloat(*s.Fragmentation, 'f', -1, 64)
	}
	first := ""
	if sum := sumInts(s.Alternatives); sum > 0 {
		first = strconv.FormatFloat(float64(s.Alternatives[0])/float64(sum), 'f', 4, 64)
	}
	t := s.Time
	return map[string]string{
		"time": secondsField(&t), "pending": fmt.Sprint(s.Pending), "running": fmt.Sprint(s.Running), "nodes": fmt.Sprint(nodes),
		"provisioning": fmt.Sprint(s.Provisioning), "cost_rate": strconv.FormatFloat(s.CostRate, 'f', -1, 64),
		"cost": strconv.FormatFloat(s.Cost, 'f', -1, 64), "devices_allocated": fmt.Sprint(alloc), "devices_total": fmt.Sprint(total),
		"fragmentation": frag, "first_choice": first,
	}
}

// timelineRequestRow is one condition cluster-autoscaler gave a
// ProvisioningRequest, so the request's lifecycle (Accepted, Provisioned,
// BookingExpired, Failed, CapacityAvailable) is rows a spreadsheet can
// filter: the class in the workload column, Type=Status as the phase, the
// request's creation as its arrival, the loops that tried it as attempts,
// and reason: message.
func timelineRequestRow(pr timeline.ProvReqRecord, c timeline.ProvReqCondition) map[string]string {
	at := c.Time
	msg := c.Reason
	if c.Message != "" {
		msg += ": " + c.Message
	}
	return map[string]string{
		"time": secondsField(&at), "namespace": pr.Namespace, "name": pr.Name, "workload": provReqClass(pr.Class),
		"phase": c.Type + "=" + c.Status, "arrival": secondsField(pr.Arrival), "attempts": fmt.Sprint(pr.Tries), "message": msg,
	}
}

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// comparisonTimelineTable is the comparison's one table.
func comparisonTimelineTable(c *timeline.Comparison) Table {
	t := Table{Header: []string{"Run", "Settings", "Placed", "Never placed", "Wait p50", "Wait p95", "Wait p99", "Cost", "Node-hours", "Scale-ups", "Scale-downs", "First choice"}}
	for _, e := range c.Entries {
		s := e.Summary
		t.Append(e.Name, orDash(e.Settings), fmt.Sprint(s.Placed), fmt.Sprint(s.NeverPlaced), optDuration(s.Wait.P50), optDuration(s.Wait.P95), optDuration(s.Wait.P99),
			money(s.Cost), strconv.FormatFloat(s.NodeHours, 'f', 2, 64), fmt.Sprint(s.ScaleUps), fmt.Sprint(s.ScaleDowns), shareOf(s.Alternatives))
	}
	return t
}

// WriteTimelineComparisonTable renders a comparison for a terminal.
func WriteTimelineComparisonTable(w io.Writer, c *timeline.Comparison) error {
	t := comparisonTimelineTable(c)
	return t.Write(w)
}

// WriteTimelineComparisonMarkdown renders a comparison as a markdown
// table.
func WriteTimelineComparisonMarkdown(w io.Writer, c *timeline.Comparison) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## drasim timeline comparison\n\n")
	writeMarkdownTable(&b, comparisonTimelineTable(c))
	_, err := w.Write(b.Bytes())
	return err
}

// provReqClass is a provisioning class without its API group.
func provReqClass(class string) string { return strings.TrimSuffix(class, ".autoscaling.x-k8s.io") }

// provReqSections list each ProvisioningRequest as cluster-autoscaler
// leaves it, then every condition it set, in time order.
func provReqSections(prs []timeline.ProvReqRecord) []section {
	reqs := Table{Header: []string{"Request", "Class", "Pods", "Created", "Tries", "Nodes added", "Conditions at the end"}}
	type row struct {
		at    timeline.Seconds
		cells []string
	}
	var rows []row
	var notes []string
	for _, pr := range prs {
		name := pr.Namespace + "/" + pr.Name
		created := "-"
		if pr.Arrival != nil {
			created = durationCell(*pr.Arrival)
		}
		var conds []string
		for _, c := range pr.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason))
		}
		reqs.Append(name, provReqClass(pr.Class), fmt.Sprint(pr.Pods), created, fmt.Sprint(pr.Tries), orDash(strings.Join(pr.Nodes, ", ")), orNone(strings.Join(conds, ", ")))
		for _, c := range pr.Transitions {
			rows = append(rows, row{c.Time, []string{durationCell(c.Time), name, c.Type, c.Status, c.Reason}})
		}
		if pr.Note != "" {
			notes = append(notes, name+": "+pr.Note)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].at < rows[j].at })
	changes := Table{Header: []string{"Time", "Request", "Condition", "Status", "Reason"}}
	for _, r := range rows {
		changes.Append(r.cells...)
	}
	intro := fmt.Sprintf("cluster-autoscaler books a Provisioned request's capacity for %s (then BookingExpired, or sooner once its pods are bound), retries Provisioned=False after %s doubling up to %s, and marks a request Failed (Expired) %s after its creation.",
		autoscale.ProvReqReservationTime, autoscale.ProvReqInitialBackoff, autoscale.ProvReqMaxBackoff, autoscale.ProvReqExpirationTime)
	for _, n := range notes {
		intro += " " + n + "."
	}
	return []section{
		{title: "Provisioning requests", intro: intro, table: reqs, empty: "None."},
		{title: "Provisioning request conditions", intro: "Each condition when cluster-autoscaler set it with a new status or reason; Tries counts the loops that handed the request to its class.", table: changes, empty: "No condition was set."},
	}
}
