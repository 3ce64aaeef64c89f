package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/autoscale"
	"sigs.k8s.io/yaml"
)

// maxListedDevices bounds the device names listed per counter set in the
// table; all of them are in the JSON output.
const maxListedDevices = 4

// WriteCapacityJSON writes the report as indented JSON. Unlike
// encoding/json's default it keeps "<none>" readable.
func WriteCapacityJSON(w io.Writer, r *analysis.Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteCapacityYAML writes the report as YAML.
func WriteCapacityYAML(w io.Writer, r *analysis.Report) error {
	data, err := yaml.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// pct renders a share (0..1) as a percentage with one decimal.
func pct(share float64) string {
	return strconv.FormatFloat(share*100, 'f', 1, 64) + "%"
}

func ratio(used, total int) string {
	return fmt.Sprintf("%d/%d", used, total)
}

// unselectedNote says how many idle devices no DeviceClass selects, which
// the fragmentation rate leaves out; "" when there are none.
func unselectedNote(f analysis.Fragmentation) string {
	if f.UnselectedIdleDevices == 0 {
		return ""
	}
	return fmt.Sprintf(" %d more idle device(s) that no DeviceClass selects are left out: no claim can request them.", f.UnselectedIdleDevices)
}

// unselectedAside is unselectedNote for a headline.
func unselectedAside(f analysis.Fragmentation) string {
	if f.UnselectedIdleDevices == 0 {
		return ""
	}
	return fmt.Sprintf(" (and %d idle that no DeviceClass selects, left out)", f.UnselectedIdleDevices)
}

// usageCells renders one utilization row; mem is the memory column's unit.
func usageCells(u analysis.Usage, mem memoryUnit) []string {
	return []string{
		fmt.Sprint(u.Nodes),
		devicesCellOf(u.Devices),
		fmt.Sprintf("%s/%s (%s)", cores(u.CPU.RequestedValue), cores(u.CPU.AllocatableValue), pct(u.CPU.Share)),
		fmt.Sprintf("%s/%s (%s)", mem.format(u.Memory.RequestedValue), mem.format(u.Memory.AllocatableValue), pct(u.Memory.Share)),
		fmt.Sprintf("%s (%s)", ratio(u.Pods.Used, u.Pods.Total), pct(u.Pods.Share)),
	}
}

// utilizationTable lists the utilization rows, memory in one unit.
func utilizationTable(ut analysis.Utilization) Table {
	type row struct {
		kind string
		u    analysis.Usage
	}
	rows := []row{{"total", ut.Total}}
	for _, u := range ut.Groups {
		rows = append(rows, row{"group", u})
	}
	for _, u := range ut.Classes {
		rows = append(rows, row{"class", u})
	}
	for _, u := range ut.Drivers {
		rows = append(rows, row{"driver", u})
	}
	var largest int64
	for _, r := range rows {
		largest = max(largest, r.u.Memory.AllocatableValue, r.u.Memory.RequestedValue)
	}
	mem := memoryUnitFor(largest)
	t := Table{Header: []string{"Kind", "Name", "Nodes", "Devices", "CPU", "Memory", "Pods"}}
	for _, r := range rows {
		name := r.u.Name
		if r.kind == "total" {
			name = "-"
		}
		t.Append(append([]string{r.kind, name}, usageCells(r.u, mem)...)...)
	}
	return t
}

// devicesCellOf renders "allocated/total (share)", with the blocked
// partitions when there are any.
func devicesCellOf(d analysis.DeviceCount) string {
	s := fmt.Sprintf("%s (%s)", ratio(d.Allocated, d.Total), pct(d.Share))
	if d.Blocked > 0 {
		s += fmt.Sprintf(", %d blocked", d.Blocked)
	}
	return s
}

// outcomeCell renders a prioritized-list outcome: "h100 4, a100 6, l4 4,
// unallocated 2".
func outcomeCell(o analysis.AlternativeOutcome) string {
	parts := make([]string, 0, len(o.Alternatives)+1)
	for i, alt := range o.Alternatives {
		parts = append(parts, fmt.Sprintf("%s %d", alt, o.Allocated[i]))
	}
	if o.Unallocated > 0 {
		parts = append(parts, fmt.Sprintf("unallocated %d", o.Unallocated))
	}
	return strings.Join(parts, ", ")
}

func shapeDevicesCell(s analysis.Shape) string {
	if len(s.Devices) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(s.Devices))
	for _, d := range s.Devices {
		count := fmt.Sprint(d.Count)
		if d.All {
			count = "all"
		}
		parts = append(parts, fmt.Sprintf("%sx %s", count, strings.Join(d.Classes, " | ")))
	}
	return strings.Join(parts, ", ")
}

func fitsCell(h analysis.Headroom) string {
	if h.Capped {
		return fmt.Sprintf(">=%d", h.Fits)
	}
	return fmt.Sprint(h.Fits)
}

// largestCell is a largest request's count, marked ">=" when it is only a
// lower bound.
func largestCell(l analysis.LargestRequest) string {
	if l.AtLeast {
		return fmt.Sprintf(">=%d", l.Devices)
	}
	return fmt.Sprint(l.Devices)
}

func listCell(names []string, limit int) string {
	if len(names) == 0 {
		return "-"
	}
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, +%d more", strings.Join(names[:limit], ", "), len(names)-limit)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// section is one titled table of the capacity report, shared by the table
// and markdown renderers so that both say the same things.
type section struct {
	title string
	// intro is a sentence printed under the title.
	intro string
	table Table
	// empty is printed instead of an empty table.
	empty string
}

// capacitySections lays the report out for people: what fits, what is in
// use, what is left and what is lost.
func capacitySections(r *analysis.Report) []section {
	out := editSections(r.Edits)
	out = append(out, fitSections(r.Fit)...)
	util := utilizationTable(r.Utilization)
	groupedBy := r.Inputs.GroupBy
	if groupedBy == analysis.DefaultGroupBy {
		groupedBy += " (without it: a node-pool label, the NodeGroup, or the node's shape)"
	}
	out = append(out, section{title: "Utilization", intro: fmt.Sprintf("Devices allocated, CPU and memory requested, pods placed; nodes grouped by %s.", groupedBy), table: util})

	pl := r.PrioritizedList
	alts := Table{Header: []string{"Namespace", "Workload", "Template", "Request", "Outcome", "First choice"}}
	for _, o := range pl.Requests {
		alts.Append(o.Namespace, o.Workload, o.Template, o.Request, outcomeCell(o), pct(o.FirstChoiceShare))
	}
	out = append(out, section{title: "Prioritized list",
		intro: fmt.Sprintf("%d of %d allocated requests got their first choice (%s).", pl.FirstChoice, pl.Allocated, pct(pl.FirstChoiceShare)),
		table: alts, empty: "No request has firstAvailable alternatives."})

	mix := Table{Header: []string{"Shape", "Namespace", "Pods", "Weight", "CPU", "Memory", "Devices"}}
	mixCPU, mixMem := columnsOf(r.Mix, func(s analysis.Shape) (string, string) { return s.CPU, s.Memory })
	for i, s := range r.Mix {
		mix.Append(s.Name, s.Namespace, fmt.Sprint(s.Pods), pct(s.Weight), mixCPU[i], mixMem[i], shapeDevicesCell(s))
	}
	out = append(out, section{title: "Workload mix", intro: fmt.Sprintf("Shapes from the %s; each weighted by its pods.", mixSourceText(r.Inputs.MixSource)), table: mix, empty: "No shapes: nothing to probe."})

	out = append(out, deviceSections(r)...)
	out = append(out, strandedSections(r.Stranded)...)
	out = append(out, resilienceSections(r.Resilience)...)
	if a := r.Autoscaling; a != nil {
		out = append(out, assessmentSections(a)...)
	}
	return out
}

// fitSections say what the replay placed: per workload, why pods wait,
// whom preemption took, which pod groups were placed whole.
func fitSections(fit analysis.Fit) []section {
	var out []section
	p := fit.Pods

	wl := Table{Header: []string{"Namespace", "Workload", "Bound", "Scheduled", "Pending"}}
	fitIntro := fmt.Sprintf("%d scheduled, %d pending, %d already bound.", p.Scheduled, p.Pending, p.Bound)
	if p.Preempted > 0 {
		wl.Header = append(wl.Header, "Preempted")
		fitIntro = fmt.Sprintf("%d scheduled, %d pending, %d already bound, %d preempted.", p.Scheduled, p.Pending, p.Bound, p.Preempted)
	}
	for _, w := range fit.Workloads {
		row := []string{w.Namespace, w.Workload, fmt.Sprint(w.Bound), fmt.Sprint(w.Scheduled), fmt.Sprint(w.Pending)}
		if p.Preempted > 0 {
			row = append(row, fmt.Sprint(w.Preempted))
		}
		wl.Append(row...)
	}
	out = append(out, section{title: "Fit", intro: fitIntro, table: wl, empty: "No pods."})

	why := Table{Header: []string{"Plugin", "Reason", "Pods", "Nodes"}}
	for _, pr := range fit.PendingReasons {
		why.Append(pr.Plugin, pr.Reason, fmt.Sprint(pr.Pods), fmt.Sprint(pr.Nodes))
	}
	out = append(out, section{title: "Why pending", table: why, empty: "Nothing is pending."})

	if pre := fit.Preemption; pre.Preempted > 0 {
		lost := Table{Header: []string{"Class", "Priority", "Preempted", "Of pods", "By"}}
		for _, c := range pre.Classes {
			lost.Append(c.Class, fmt.Sprint(c.Priority), fmt.Sprint(c.Preempted), fmt.Sprint(c.Pods), strings.Join(c.By, ", "))
		}
		intro := fmt.Sprintf("%d pod(s) preempted by %d pod(s) of higher priority", pre.Preempted, pre.Preemptors)
		if pre.PDBViolations > 0 {
			intro += fmt.Sprintf(", %d against a PodDisruptionBudget", pre.PDBViolations)
		}
		out = append(out, section{title: "Preemption", intro: intro + ".", table: lost})
	}

	if pg := fit.PodGroups; pg != nil {
		groups := Table{Header: []string{"Pod group", "Min count", "Placed", "Status", "Blocker"}}
		for _, g := range pg.Groups {
			status := strings.ToLower(g.Phase)
			if g.Partial {
				status = "partial (gate off)"
			}
			groups.Append(g.Namespace+"/"+g.Name, fmt.Sprint(g.MinCount), fmt.Sprintf("%d/%d", g.Placed, g.Pods), status, g.Blocker)
		}
		intro := fmt.Sprintf("%d placed whole, %d not", pg.Placed, pg.NotPlaced)
		if pg.Partial > 0 {
			intro += fmt.Sprintf(" (%d placed in part with GenericWorkload off: kube with the gate places minCount pods or none)", pg.Partial)
		}
		out = append(out, section{title: "Pod groups", intro: intro + ".", table: groups})
	}

	return out
}

// deviceSections say how the idle devices serve the workload mix:
// fragmentation, headroom per shape, the largest request per class and
// the shared counters of partitionable devices.
func deviceSections(r *analysis.Report) []section {
	var out []section
	f := r.Fragmentation
	frag := Table{Header: []string{"Class", "Idle devices", "Fragmented", "Rate"}}
	for _, c := range f.Classes {
		frag.Append(c.Class, fmt.Sprint(c.IdleDevices), strconv.FormatFloat(c.FragmentedDevices, 'f', -1, 64), pct(c.Rate))
	}
	out = append(out, section{title: "Fragmentation",
		intro: fmt.Sprintf("Rate %s: %s of %d idle devices are fragmented for the mix.%s", pct(f.Rate), strconv.FormatFloat(f.FragmentedDevices, 'f', -1, 64), f.IdleDevices, unselectedNote(f)),
		table: frag, empty: "No DeviceClasses."})

	head := Table{Header: []string{"Shape", "Fits", "Nodes", "Feasible nodes", "Fragmented", "Method", "Why not"}}
	for i, h := range r.Headroom {
		feasible, fragmented := "-", "-"
		if i < len(f.Shapes) {
			feasible, fragmented = fmt.Sprint(f.Shapes[i].FeasibleNodes), fmt.Sprintf("%d (%s)", f.Shapes[i].FragmentedDevices, pct(f.Shapes[i].Rate))
		}
		head.Append(h.Shape, fitsCell(h), fmt.Sprint(h.Nodes), feasible, fragmented, h.Method, orDash(h.Reason))
	}
	out = append(out, section{title: "Headroom", intro: "More instances of each shape that fit, placed one after another.", table: head, empty: "No shapes."})

	largest := Table{Header: []string{"Class", "Largest request", "Node", "Idle devices"}}
	for _, l := range r.LargestRequests {
		largest.Append(l.Class, largestCell(l), orDash(l.Node), fmt.Sprint(l.Available))
	}
	out = append(out, section{title: "Largest request", intro: "The most devices of a class one claim can get on one node now.", table: largest, empty: "No DeviceClasses."})

	sets := Table{Header: []string{"Driver", "Pool", "Counter set", "Free", "Fits"}}
	for _, cs := range r.CounterSets {
		sets.Append(cs.Driver, cs.Pool, cs.Name, pct(cs.FreeShare), fmt.Sprintf("%d: %s", len(cs.Fits), listCell(cs.Fits, maxListedDevices)))
	}
	out = append(out, section{title: "Counter sets", intro: "Shared counters of partitionable devices, and the idle partitions that still fit.", table: sets, empty: "No partitionable devices."})

	return out
}

// strandedSections list the nodes whose idle devices lack CPU, memory or
// pod slots, and those whose CPU and memory lack devices.
func strandedSections(st analysis.Stranded) []section {
	var out []section
	sd := Table{Header: []string{"Node", "Group", "Idle devices", "Short of", "Free CPU", "Free memory", "Free pods"}}
	sdCPU, sdMem := columnsOf(st.DeviceNodes, func(n analysis.StrandedDevices) (string, string) { return n.FreeCPU, n.FreeMemory })
	for i, n := range st.DeviceNodes {
		sd.Append(n.Node, n.Group, fmt.Sprint(n.IdleDevices), strings.Join(n.Exhausted, ", "), sdCPU[i], sdMem[i], fmt.Sprint(n.FreePods))
	}
	out = append(out, section{title: "Stranded devices", intro: fmt.Sprintf("%d idle device(s) on nodes with too little CPU, memory or pod slots for any device-requesting shape.", st.Devices), table: sd, empty: "None."})
	sh := Table{Header: []string{"Node", "Group", "Devices", "Free CPU", "Free memory"}}
	shCPU, shMem := columnsOf(st.HostNodes, func(n analysis.StrandedHost) (string, string) { return n.FreeCPU, n.FreeMemory })
	for i, n := range st.HostNodes {
		sh.Append(n.Node, n.Group, fmt.Sprint(n.Devices), shCPU[i], shMem[i])
	}
	out = append(out, section{title: "Stranded CPU and memory", intro: fmt.Sprintf("%s CPU and %s memory free on nodes whose devices are all taken.", st.CPU, st.Memory), table: sh, empty: "None."})
	return out
}

// assessmentSections say what each ProvisioningRequest and CapacityBuffer
// would get from cluster-autoscaler on the cluster after the replay.
func assessmentSections(a *autoscale.Assessment) []section {
	var out []section
	if len(a.ProvisioningRequests) > 0 {
		t := Table{Header: []string{"Request", "Class", "Pods", "Fit now", "State", "Scale-up", "Why"}}
		correct := false
		for _, r := range a.ProvisioningRequests {
			t.Append(r.Name, provReqClass(r.Class), fmt.Sprint(r.Pods), fmt.Sprint(r.FitNow), r.State, requestOptionsCell(r.Options), orDash(r.Why))
			if r.CorrectState != "" {
				correct = true
				t.Append(r.Name+" (correct)", provReqClass(r.Class), fmt.Sprint(r.Pods), fmt.Sprint(r.CorrectFitNow), r.CorrectState, requestOptionsCell(r.CorrectOptions),
					"drasim's answer with claims made from the pods' ResourceClaimTemplates")
			}
		}
		intro := "What cluster-autoscaler would answer now: the pods fit the cluster as it stands (check-capacity's CapacityIsFound), a best-effort-atomic-scale-up request needs a scale-up of one group for all of the rest in one loop (each group that can, with its nodes), or they cannot be held."
		if correct {
			intro += " Rows marked (correct) are drasim's answer where cluster-autoscaler's differs (kubernetes/autoscaler issue 10065)."
		}
		out = append(out, section{title: "Provisioning requests", intro: intro, table: t})
	}
	if len(a.CapacityBuffers) > 0 {
		t := Table{Header: []string{"Buffer", "Chunk", "Replicas", "Held", "On nodes", "To hold the rest"}}
		var notes []string
		for _, b := range a.CapacityBuffers {
			t.Append(b.Name, b.Shape, fmt.Sprint(b.Replicas), fmt.Sprint(b.Held), orDash(strings.Join(b.Nodes, ", ")), bufferOptionsCell(b.Options, b.Held == b.Replicas))
			if b.CorrectHeld != nil {
				t.Append(b.Name+" (correct)", b.Shape, fmt.Sprint(b.Replicas), fmt.Sprint(*b.CorrectHeld), "-", bufferOptionsCell(b.CorrectOptions, *b.CorrectHeld == b.Replicas))
				notes = append(notes, b.Name+": cluster-autoscaler makes no claims for the chunks' ResourceClaimTemplates, so they are never held; the (correct) row has them")
			}
		}
		intro := "The chunks each buffer's fleet holds in its free capacity now (first fit, as cluster-autoscaler holds them), the nodes they take, and the nodes each group would add to hold the others."
		for _, n := range notes {
			intro += " " + n + "."
		}
		out = append(out, section{title: "Capacity buffers", intro: intro, table: t})
	}
	return out
}

func requestOptionsCell(opts []autoscale.RequestOption) string {
	var parts []string
	for _, o := range opts {
		parts = append(parts, optionText(o))
	}
	return orDash(strings.Join(parts, ", "))
}

func optionText(o autoscale.RequestOption) string {
	s := fmt.Sprintf("%s +%d", o.Group, o.Nodes)
	if o.CostPerHour != nil {
		s += fmt.Sprintf(" (%s/h)", money(*o.CostPerHour))
	}
	return s
}

func bufferOptionsCell(opts []autoscale.BufferOption, all bool) string {
	if all {
		return "-"
	}
	var parts []string
	for _, o := range opts {
		parts = append(parts, fmt.Sprintf("%s for %d", optionText(o.RequestOption), o.Chunks))
	}
	if len(parts) == 0 {
		return "no group can"
	}
	return strings.Join(parts, ", ")
}

func mixSourceText(source string) string {
	if source == analysis.MixProbe {
		return "probe file"
	}
	return "pods of the replay"
}

func headline(r *analysis.Report) string {
	in := r.Inputs
	return fmt.Sprintf("Capacity after the replay: %d node(s), %d device(s), %d pod(s) (kube-scheduler %s%s).", in.Nodes, in.Devices, in.Pods, in.KubernetesVersion, tieBreakNote(in.TieBreak, in.Seed))
}

// WriteCapacityTable renders the report for a terminal, kubectl style.
func WriteCapacityTable(w io.Writer, r *analysis.Report) error {
	var b bytes.Buffer
	fmt.Fprintln(&b, headline(r))
	for _, s := range capacitySections(r) {
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

// markdownCell escapes what would break a markdown table cell.
func markdownCell(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "*", `\*`)
	s = strings.ReplaceAll(s, "<", "&lt;")
	s = strings.ReplaceAll(s, ">", "&gt;")
	return strings.ReplaceAll(s, "\n", " ")
}

func writeMarkdownTable(w io.Writer, t Table) {
	escaped := Table{Header: t.Header, Rows: make([][]string, len(t.Rows))}
	for i, row := range t.Rows {
		escaped.Rows[i] = mapStrings(row, markdownCell)
	}
	writeMarkdownRows(w, escaped)
}

// writeMarkdownRows writes a table whose cells are already markdown.
func writeMarkdownRows(w io.Writer, t Table) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(mapStrings(t.Header, markdownCell), " | "))
	seps := make([]string, len(t.Header))
	for i := range seps {
		seps[i] = "---"
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(seps, " | "))
	for _, row := range t.Rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
}

func mapStrings(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// WriteCapacityMarkdown renders the report for a pull-request comment or a
// CI job summary: the key numbers first, every table after.
func WriteCapacityMarkdown(w io.Writer, r *analysis.Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## drasim capacity report\n\n%s\n\n", markdownCell(headline(r)))
	p := r.Fit.Pods
	fmt.Fprintf(&b, "- **Fit:** %d scheduled, %d pending, %d already bound\n", p.Scheduled, p.Pending, p.Bound)
	if pre := r.Fit.Preemption; pre.Preempted > 0 {
		fmt.Fprintf(&b, "- **Preempted:** %d pod(s) by %d pod(s) of higher priority\n", pre.Preempted, pre.Preemptors)
	}
	if pg := r.Fit.PodGroups; pg != nil {
		fmt.Fprintf(&b, "- **Pod groups:** %d placed whole, %d not\n", pg.Placed, pg.NotPlaced)
	}
	fmt.Fprintf(&b, "- **Devices allocated:** %d of %d (%s)\n", r.Utilization.Total.Devices.Allocated, r.Utilization.Total.Devices.Total, pct(r.Utilization.Total.Devices.Share))
	fmt.Fprintf(&b, "- **Fragmentation rate:** %s of %d idle devices%s\n", pct(r.Fragmentation.Rate), r.Fragmentation.IdleDevices, unselectedAside(r.Fragmentation))
	fmt.Fprintf(&b, "- **First-choice allocations:** %s\n", pct(r.PrioritizedList.FirstChoiceShare))
	fmt.Fprintf(&b, "- **Stranded:** %d idle device(s); %s CPU and %s memory\n", r.Stranded.Devices, r.Stranded.CPU, r.Stranded.Memory)
	for _, s := range capacitySections(r) {
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
		fmt.Fprintln(&b, "\n### Warnings")
		fmt.Fprintln(&b)
		for _, warn := range r.Warnings {
			fmt.Fprintf(&b, "- %s\n", markdownCell(warn))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// CSV record kinds.
const (
	csvPod  = "pod"
	csvNode = "node"
)

var csvHeader = []string{
	"record", "namespace", "name", "workload", "phase", "node", "group", "devices", "devices_allocated", "devices_idle", "devices_blocked",
	"cpu_requested_millicores", "cpu_allocatable_millicores", "memory_requested_bytes", "memory_allocatable_bytes",
	"pods", "pods_allocatable", "stranded", "reason",
}

// WriteCapacityCSV writes one row per pod and one per node under a single
// header; the record column says which, and columns that do not apply to
// a record are empty.
func WriteCapacityCSV(w io.Writer, r *analysis.Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, p := range r.Pods {
		row := []string{csvPod, p.Namespace, p.Name, p.Workload, p.Phase, p.Node, "", fmt.Sprint(p.Devices), "", "", "", "", "", "", "", "", "", "", p.Reason}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	for _, n := range r.Nodes {
		row := []string{csvNode, "", n.Name, "", "", "", n.Group,
			fmt.Sprint(n.Devices.Total), fmt.Sprint(n.Devices.Allocated), fmt.Sprint(n.Devices.Idle), fmt.Sprint(n.Devices.Blocked),
			fmt.Sprint(n.CPU.RequestedValue), fmt.Sprint(n.CPU.AllocatableValue), fmt.Sprint(n.Memory.RequestedValue), fmt.Sprint(n.Memory.AllocatableValue),
			fmt.Sprint(n.Pods.Used), fmt.Sprint(n.Pods.Total), n.Stranded, ""}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
