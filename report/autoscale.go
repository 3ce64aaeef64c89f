package report

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/drasim/drasim/sim/autoscale"
)

// WriteScaleUpTable renders a scale-up plan for a person: the groups, every
// loop's options and decision, the nodes to add, and why the pods that are
// still pending stay so.
func WriteScaleUpTable(w io.Writer, p *autoscale.Plan) error {
	var b bytes.Buffer
	fmt.Fprintln(&b, scaleUpHeadline(p))
	for _, s := range scaleUpSections(p) {
		fmt.Fprintf(&b, "\n%s\n", strings.ToUpper(s.title))
		if len(s.table.Rows) == 0 {
			fmt.Fprintln(&b, s.empty)
		} else if err := s.table.Write(&b); err != nil {
			return err
		}
		for _, l := range s.lines {
			fmt.Fprintln(&b, l)
		}
	}
	for _, warn := range p.Warnings {
		fmt.Fprintf(&b, "\nwarning: %s", warn)
	}
	if len(p.Warnings) > 0 {
		fmt.Fprintln(&b)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteSimulateScaleUpTable writes drasim simulate --autoscale's table: the
// scale-up summed up in one line (expanders, nodes added per group, cost,
// why it stopped), then the replay of the scaled cluster as drasim
// simulate shows it.
func WriteSimulateScaleUpTable(w io.Writer, p *autoscale.Plan) error {
	added := make([]string, 0, len(p.ScaleUp))
	for _, su := range p.ScaleUp {
		added = append(added, fmt.Sprintf("%s %d->%d", su.Group, su.From, su.To))
	}
	sort.Strings(added)
	if _, err := fmt.Fprintf(w, "Scale-up (%s): %d node(s) in %d loop(s) [%s], %.2f/h. Stopped: %s.\n\n",
		strings.Join(p.Inputs.Expanders, ","), p.NodesAdded, len(p.Loops), strings.Join(added, ", "), p.CostPerHour, p.Stop.Message); err != nil {
		return err
	}
	for _, pr := range p.ProvisioningRequests {
		var conds []string
		for _, c := range pr.Conditions {
			conds = append(conds, c.Type+"="+c.Status+" ("+c.Reason+")")
		}
		if _, err := fmt.Fprintf(w, "ProvisioningRequest %s (%s, %d pods): %s.\n", pr.Name, strings.TrimSuffix(pr.Class, ".autoscaling.x-k8s.io"), pr.Pods, orNone(strings.Join(conds, ", "))); err != nil {
			return err
		}
	}
	for _, b := range p.Buffers {
		if _, err := fmt.Fprintf(w, "CapacityBuffer %s (%s): %d of %d chunks held, %d node(s) added for it.\n", b.Name, b.Shape, b.Held, b.Replicas, b.NodesAdded); err != nil {
			return err
		}
	}
	if len(p.ProvisioningRequests)+len(p.Buffers) > 0 {
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return WriteSimulationTable(w, p.Result)
}

// WriteScaleUpMarkdown renders the plan for a pull-request comment or a
// CI job summary.
func WriteScaleUpMarkdown(w io.Writer, p *autoscale.Plan) error {
	var b bytes.Buffer
	fmt.Fprint(&b, "## drasim scale-up plan\n\n")
	for _, line := range strings.Split(scaleUpHeadline(p), "\n") {
		fmt.Fprintf(&b, "%s\n\n", scaleUpMarkdownCell(line))
	}
	for i, s := range scaleUpSections(p) {
		if i > 0 {
			fmt.Fprintln(&b)
		}
		fmt.Fprintf(&b, "### %s\n\n", s.title)
		if len(s.table.Rows) == 0 {
			fmt.Fprintln(&b, s.empty)
		} else {
			writeScaleUpMarkdownTable(&b, s.table)
		}
		if len(s.lines) > 0 {
			fmt.Fprintln(&b)
		}
		for _, l := range s.lines {
			fmt.Fprintf(&b, "- %s\n", scaleUpMarkdownCell(strings.TrimSpace(l)))
		}
	}
	if len(p.Warnings) > 0 {
		fmt.Fprint(&b, "\n### Warnings\n\n")
		for _, warn := range p.Warnings {
			fmt.Fprintf(&b, "- %s\n", scaleUpMarkdownCell(warn))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func scaleUpHeadline(p *autoscale.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scale-up: %d node(s) in %d loop(s), costing %s per hour", p.NodesAdded, len(p.Loops), money(p.CostPerHour))
	if p.UnpricedNodes > 0 {
		fmt.Fprintf(&b, " (+%d node(s) without a price)", p.UnpricedNodes)
	}
	fmt.Fprintf(&b, " (expander %s, seed %d). Stopped: %s.\n", strings.Join(p.Inputs.Expanders, ","), p.Inputs.Seed, p.Stop.Message)
	fmt.Fprintf(&b, "Pending after the replay: %d pod(s)", p.Inputs.PendingPods)
	if r := p.Result; r != nil {
		fmt.Fprintf(&b, "; after the scale-up: %d scheduled, %d pending", r.Summary.Scheduled, r.Summary.Unschedulable)
	}
	b.WriteString(".")
	return b.String()
}

type scaleUpSection struct {
	title string
	table Table
	empty string
	lines []string
}

func scaleUpSections(p *autoscale.Plan) []scaleUpSection {
	groups := scaleUpSection{title: "Node groups", table: Table{Header: []string{"Group", "Size", "Min", "Max", "Price", "CPU", "Memory", "Devices", "Template"}}}
	cpus, mems := columnsOf(p.Groups, func(g autoscale.GroupInfo) (string, string) { return g.CPU, g.Memory })
	for i, g := range p.Groups {
		price := "-"
		if g.PricePerHour != nil {
			price = money(*g.PricePerHour)
		}
		tmpl := "given"
		if g.TemplateFrom != "" {
			tmpl = "from node " + g.TemplateFrom
		}
		groups.table.Append(g.Name, fmt.Sprint(g.Size), fmt.Sprint(g.MinSize), fmt.Sprint(g.MaxSize), price, cpus[i], mems[i], fmt.Sprint(g.Devices), tmpl)
	}

	options := scaleUpSection{title: "Options", empty: "No loop: nothing pending could be helped.",
		table: Table{Header: []string{"Loop", "Group", "Nodes", "Pods", "CPU waste", "Mem waste", "Device waste", "Cost", "PL score", "Chosen"}}}
	for _, l := range p.Loops {
		for _, o := range l.Options {
			chosen := ""
			if l.Decision != nil && l.Decision.Chosen == o.Group {
				chosen = "by " + l.Decision.By
			}
			nodes := fmt.Sprint(o.Nodes)
			if o.Limited {
				nodes += " (limit)"
			}
			options.table.Append(fmt.Sprint(l.Index), o.Group, nodes, fmt.Sprint(o.Pods), percent(o.CPUWaste), percent(o.MemoryWaste),
				deviceWasteCell(o), costCell(o.CostPerHour), plScoreCell(o), chosen)
		}
		options.lines = append(options.lines, loopLines(l)...)
	}

	scaleUp := scaleUpSection{title: "Scale-up", empty: "No node to add.", table: Table{Header: []string{"Group", "From", "To", "Max", "Added", "Cost"}}}
	for _, su := range p.ScaleUp {
		scaleUp.table.Append(su.Group, fmt.Sprint(su.From), fmt.Sprint(su.To), fmt.Sprint(su.Max), fmt.Sprint(su.To-su.From), costCell(su.CostPerHour))
	}
	if len(p.ScaleUp) > 1 {
		scaleUp.table.Append("total", "", "", "", fmt.Sprint(p.NodesAdded), money(p.CostPerHour))
	}

	pending := scaleUpSection{title: "Still pending", empty: "None: every pod has a node.", table: Table{Header: []string{"Pod", "Never fits", "Why"}}}
	for _, pp := range p.Pending {
		never := "no"
		if pp.NeverFits {
			never = "yes"
		}
		pending.table.Append(pp.Pod, never, pp.Reason)
	}
	sections := []scaleUpSection{groups, options, scaleUp, pending}
	if len(p.ProvisioningRequests) > 0 {
		sections = append(sections, provReqSection(p))
	}
	if len(p.Buffers) > 0 {
		sections = append(sections, bufferSection(p))
	}
	return sections
}

// provReqSection lists each ProvisioningRequest with its conditions as
// cluster-autoscaler leaves them.
func provReqSection(p *autoscale.Plan) scaleUpSection {
	sec := scaleUpSection{title: "Provisioning requests", table: Table{Header: []string{"Request", "Class", "Pods", "Loop", "Nodes", "Conditions"}}}
	for _, pr := range p.ProvisioningRequests {
		var conds []string
		for _, c := range pr.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s (%s, %s)", c.Type, c.Status, c.Reason, c.At))
		}
		loop := "-"
		if pr.Loop > 0 {
			loop = fmt.Sprint(pr.Loop)
		}
		sec.table.Append(pr.Name, strings.TrimSuffix(pr.Class, ".autoscaling.x-k8s.io"), fmt.Sprint(pr.Pods), loop, fmt.Sprint(pr.NodesAdded), orNone(strings.Join(conds, ", ")))
		if pr.Note != "" {
			sec.lines = append(sec.lines, fmt.Sprintf("%s: %s", pr.Name, pr.Note))
		}
	}
	sec.lines = append(sec.lines, fmt.Sprintf("cluster-autoscaler books a Provisioned request's capacity for %s (then BookingExpired), retries Provisioned=False after %s doubling up to %s, and marks a request Failed (Expired) %s after its creation.",
		autoscale.ProvReqReservationTime, autoscale.ProvReqInitialBackoff, autoscale.ProvReqMaxBackoff, autoscale.ProvReqExpirationTime))
	return sec
}

// bufferSection says how many chunks of each CapacityBuffer the fleet
// holds after the scale-up, and the nodes added for them.
func bufferSection(p *autoscale.Plan) scaleUpSection {
	sec := scaleUpSection{title: "Capacity buffers", table: Table{Header: []string{"Buffer", "Chunk", "Replicas", "Held", "Nodes added"}}}
	for _, b := range p.Buffers {
		sec.table.Append(b.Name, b.Shape, fmt.Sprint(b.Replicas), fmt.Sprint(b.Held), fmt.Sprint(b.NodesAdded))
		if b.Note != "" {
			sec.lines = append(sec.lines, fmt.Sprintf("%s: %s", b.Name, b.Note))
		}
	}
	return sec
}

// loopLines says what the loop decided and what came of it.
func loopLines(l autoscale.Loop) []string {
	var out []string
	for _, s := range l.Skipped {
		out = append(out, fmt.Sprintf("loop %d: %s skipped: %s", l.Index, s.Group, s.Reason))
	}
	if l.Decision != nil {
		for _, s := range l.Decision.Steps {
			out = append(out, fmt.Sprintf("loop %d: %s kept %s (%s)", l.Index, s.Expander, orNone(strings.Join(s.Kept, ", ")), s.Why))
		}
	}
	if l.ProvisioningRequest != "" {
		out = append(out, fmt.Sprintf("loop %d: ProvisioningRequest %s: %s", l.Index, l.ProvisioningRequest, l.ProvisioningResult))
	}
	if len(l.Added) > 0 {
		out = append(out, fmt.Sprintf("loop %d: added %s; the replay placed %d of %d pending pod(s), %d still pending",
			l.Index, strings.Join(l.Added, ", "), l.Placed, l.PendingPods, l.StillPending))
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func percent(share float64) string {
	return strconv.FormatFloat(share*100, 'f', 1, 64) + "%"
}

func money(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func costCell(c *float64) string {
	if c == nil {
		return "-"
	}
	return money(*c)
}

func deviceWasteCell(o autoscale.Option) string {
	if o.Devices == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (%s/%d idle)", percent(o.DeviceWaste), strconv.FormatFloat(o.IdleDevices, 'f', -1, 64), o.Devices)
}

func plScoreCell(o autoscale.Option) string {
	if o.PrioritizedListPods == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(o.PrioritizedListScore)/float64(o.PrioritizedListPods), 'f', 2, 64)
}

// WriteScaleUpComparisonTable puts the plans of several expander chains
// side by side.
func WriteScaleUpComparisonTable(w io.Writer, c *autoscale.Comparison) error {
	t := comparisonTable(c)
	return t.Write(w)
}

// WriteScaleUpComparisonMarkdown renders the comparison as a markdown
// table.
func WriteScaleUpComparisonMarkdown(w io.Writer, c *autoscale.Comparison) error {
	var b bytes.Buffer
	fmt.Fprint(&b, "## drasim expander comparison\n\n")
	writeScaleUpMarkdownTable(&b, comparisonTable(c))
	_, err := w.Write(b.Bytes())
	return err
}

func comparisonTable(c *autoscale.Comparison) Table {
	t := Table{Header: []string{"Expander", "Nodes", "Cost", "Groups", "Scheduled", "Pending", "First choice", "Fragmentation after", "Loops", "Stop"}}
	for _, e := range c.Entries {
		cost := money(e.CostPerHour)
		if e.UnpricedNodes > 0 {
			cost += fmt.Sprintf(" (+%d unpriced)", e.UnpricedNodes)
		}
		first := "-"
		if e.FirstChoiceShare != nil {
			first = fmt.Sprintf("%s (%d/%d)", percent(*e.FirstChoiceShare), e.FirstChoice, e.PrioritizedList)
		}
		frag := "-"
		if e.FragmentationAfter != nil {
			frag = fmt.Sprintf("%s of %d idle", percent(*e.FragmentationAfter), e.IdleDevicesAfter)
		}
		t.Append(e.Expanders, fmt.Sprint(e.NodesAdded), cost, orNone(e.ScaleUp), fmt.Sprint(e.Scheduled), fmt.Sprint(e.Pending), first, frag, fmt.Sprint(e.Loops), string(e.Stop))
	}
	return t
}

// scaleUpMarkdownCell escapes what would break a markdown table cell.
func scaleUpMarkdownCell(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "<", "&lt;", ">", "&gt;", "\n", " ")
	return r.Replace(s)
}

func writeScaleUpMarkdownTable(w io.Writer, t Table) {
	cells := func(row []string) string {
		out := make([]string, len(row))
		for i, c := range row {
			out[i] = scaleUpMarkdownCell(c)
		}
		return "| " + strings.Join(out, " | ") + " |\n"
	}
	io.WriteString(w, cells(t.Header))
	seps := make([]string, len(t.Header))
	for i := range seps {
		seps[i] = "---"
	}
	io.WriteString(w, "| "+strings.Join(seps, " | ")+" |\n")
	for _, row := range t.Rows {
		io.WriteString(w, cells(row))
	}
}
