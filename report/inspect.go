package report

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/drasim/drasim/sim/inspect"
)

// inspectMaxPoolRows bounds the POOLS table: a real cluster has a pool per
// node and driver, and the incomplete ones are what a reader looks for.
const inspectMaxPoolRows = 20

// WriteInspectTable writes s as titled kubectl-style tables, one section per
// part of the snapshot, sized for a 100-column terminal.
func WriteInspectTable(w io.Writer, s *inspect.Summary) error {
	var b bytes.Buffer
	sections := []func(*bytes.Buffer, *inspect.Summary) error{
		writeInspectNodes,
		writeInspectDrivers,
		writeInspectClasses,
		writeInspectPools,
		writeInspectClaims,
		writeInspectPods,
		writeInspectWorkloads,
		writeInspectSkipped,
	}
	for i, write := range sections {
		if i > 0 {
			b.WriteString("\n")
		}
		if err := write(&b, s); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeInspectNodes(b *bytes.Buffer, s *inspect.Summary) error {
	n := s.Nodes
	fmt.Fprintf(b, "NODES: %d total, %d schedulable, %d unschedulable, %d tainted (NoSchedule/NoExecute)\n",
		n.Total, n.Schedulable, n.Unschedulable, n.Tainted)
	if len(n.Groups) == 0 {
		return nil
	}
	fmt.Fprintf(b, "grouped by label %s\n", n.GroupBy)
	t := Table{Header: []string{"group", "nodes", "cpu", "memory", "pods", "devices"}}
	cpus, mems := columnsOf(n.Groups, func(g inspect.NodeGroup) (string, string) { return g.CPU, g.Memory })
	for i, g := range n.Groups {
		t.Append(g.Name, strconv.Itoa(g.Nodes), cpus[i], mems[i], strconv.FormatInt(g.Pods, 10), strconv.Itoa(g.Devices))
	}
	return t.Write(b)
}

func writeInspectDrivers(b *bytes.Buffer, s *inspect.Summary) error {
	fmt.Fprintf(b, "DEVICES BY DRIVER: %s from %s\n", inspectCount(s.Devices.Total, "device"), inspectCount(len(s.Devices.Drivers), "driver"))
	t := Table{Header: []string{"driver", "pools", "slices", "nodes", "devices", "allocated"}}
	for _, d := range s.Devices.Drivers {
		t.Append(d.Name, strconv.Itoa(d.Pools), strconv.Itoa(d.Slices), strconv.Itoa(d.Nodes), strconv.Itoa(d.Devices), strconv.Itoa(d.Allocated))
	}
	return t.Write(b)
}

func writeInspectClasses(b *bytes.Buffer, s *inspect.Summary) error {
	classes := s.Devices.Classes
	fmt.Fprintf(b, "DEVICE CLASSES: %d\n", len(classes))
	// Admin access is rare; its column appears only when some device has it.
	admin := false
	for _, c := range classes {
		admin = admin || c.AdminAccess > 0
	}
	t := Table{Header: []string{"class", "selectors", "matching", "allocated", "free"}}
	if admin {
		t.Header = append(t.Header, "admin access")
	}
	for _, c := range classes {
		row := []string{c.Name, strconv.Itoa(c.Selectors), strconv.Itoa(c.Matching), strconv.Itoa(c.Allocated), strconv.Itoa(c.Matching - c.Allocated)}
		if admin {
			row = append(row, strconv.Itoa(c.AdminAccess))
		}
		t.Append(row...)
	}
	if err := t.Write(b); err != nil {
		return err
	}
	// The scheduler fails every claim of such a class; say so below the
	// table. Compiler messages span lines (with a caret); the first one is
	// enough here, the JSON output has all of it.
	for _, c := range classes {
		msg, _, _ := strings.Cut(c.Error, "\n")
		switch {
		case c.EvalErrors > 0:
			fmt.Fprintf(b, "! %s: CEL selector failed on %s; the first error:\n    %s\n", c.Name, inspectCount(c.EvalErrors, "device"), msg)
		case c.Error != "":
			fmt.Fprintf(b, "! %s: selector does not compile, the class matches nothing:\n    %s\n", c.Name, msg)
		}
	}
	return nil
}

func writeInspectPools(b *bytes.Buffer, s *inspect.Summary) error {
	incomplete := 0
	for _, p := range s.Pools {
		if !p.Complete {
			incomplete++
		}
	}
	fmt.Fprintf(b, "POOLS: %d total, %d incomplete\n", len(s.Pools), incomplete)
	// Show every pool if they fit; otherwise the incomplete ones first, then
	// complete ones up to the limit, keeping the sorted order.
	show := make([]bool, len(s.Pools))
	shown := 0
	for _, wantComplete := range []bool{false, true} {
		for i, p := range s.Pools {
			if p.Complete == wantComplete && shown < inspectMaxPoolRows {
				show[i] = true
				shown++
			}
		}
	}
	// Pools are sorted by driver; the driver heads its pools instead of
	// taking a column, which keeps long node names within 100 columns.
	t := Table{Header: []string{"driver / pool", "node", "gen", "slices", "devices", "complete"}}
	driver := ""
	for i, p := range s.Pools {
		if !show[i] {
			continue
		}
		if t.Rows == nil || p.Driver != driver {
			driver = p.Driver
			t.Append(driver, "", "", "", "", "")
		}
		slices := fmt.Sprintf("%d/%d", p.Slices, p.ResourceSliceCount)
		if p.StaleSlices > 0 {
			slices += fmt.Sprintf(" (+%d stale)", p.StaleSlices)
		}
		t.Append("  "+p.Name, p.Node, strconv.FormatInt(p.Generation, 10), slices, strconv.Itoa(p.Devices), inspectYesNo(p.Complete))
	}
	if err := t.Write(b); err != nil {
		return err
	}
	if more := len(s.Pools) - shown; more > 0 {
		fmt.Fprintf(b, "... and %d more\n", more)
	}
	return nil
}

func writeInspectClaims(b *bytes.Buffer, s *inspect.Summary) error {
	c := s.Claims
	fmt.Fprintf(b, "CLAIMS: %d total, %d allocated, %d pending, %d reserved; %s\n",
		c.Total, c.Allocated, c.Pending, c.Reserved, inspectCount(c.Templates, "template"))
	return nil
}

func writeInspectPods(b *bytes.Buffer, s *inspect.Summary) error {
	p := s.Pods
	fmt.Fprintf(b, "PODS: %d total, %d bound, %d pending; %d from the snapshot, %d generated from controllers\n",
		p.Total, p.Bound, p.Pending, p.FromDump, p.Generated)
	return nil
}

func writeInspectWorkloads(b *bytes.Buffer, s *inspect.Summary) error {
	fmt.Fprintf(b, "WORKLOADS: %d\n", len(s.Workloads))
	t := Table{Header: []string{"namespace", "kind", "name", "desired", "pods", "with claims"}}
	missing := false
	for _, wl := range s.Workloads {
		name, desired := wl.Name, "-"
		if name == "" {
			name = "(bare pods)"
		}
		switch {
		case wl.Desired != nil:
			desired = strconv.Itoa(*wl.Desired)
		case wl.ControllerMissing:
			desired = "?"
			missing = true
		}
		t.Append(wl.Namespace, wl.Kind, name, desired, strconv.Itoa(wl.Pods), strconv.Itoa(wl.WithClaims))
	}
	if err := t.Write(b); err != nil {
		return err
	}
	if missing {
		b.WriteString("? the controller is not in the snapshot\n")
	}
	return nil
}

func writeInspectSkipped(b *bytes.Buffer, s *inspect.Summary) error {
	total := 0
	for _, k := range s.Skipped {
		total += k.Count
	}
	if total == 0 {
		b.WriteString("SKIPPED: none\n")
		return nil
	}
	fmt.Fprintf(b, "SKIPPED: %s of %s drasim does not model\n", inspectCount(total, "object"), inspectCount(len(s.Skipped), "kind"))
	t := Table{Header: []string{"kind", "count"}}
	for _, k := range s.Skipped {
		t.Append(k.Kind, strconv.Itoa(k.Count))
	}
	return t.Write(b)
}

// inspectCount writes "1 driver", "2 drivers".
func inspectCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func inspectYesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
