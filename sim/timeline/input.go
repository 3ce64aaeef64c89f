package timeline

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
)

// TraceFile is a trace's name (for messages) and content.
type TraceFile struct {
	Name string
	Data []byte
}

// Prepare makes a timeline's input from a loaded snapshot and trace
// files: the snapshot's pods are split by drasim.io/arrival (FromSnapshot);
// each trace is read in the format its header says (DetectFormat). Nodes
// of openb node lists join the cluster at the start. Arrivals from the
// snapshot come first among equal times, then each trace's in order. The
// caller's snapshot is not changed.
func Prepare(snap *snapshot.Snapshot, files []string, traces []TraceFile) (*Input, error) {
	work, later, initial, err := FromSnapshot(snap)
	if err != nil {
		return nil, err
	}
	// The readers add claim templates, classes, nodes and slices: give
	// them lists of their own.
	work = work.Copy()
	requests, err := requestArrivals(work)
	if err != nil {
		return nil, err
	}
	in := &Input{Snapshot: work, Initial: initial, Arrivals: later, Workloads: map[string]bool{}, Requests: requests, Files: files}
	for _, t := range traces {
		in.Files = append(in.Files, t.Name)
		var arr Arrivals
		switch DetectFormat(headerLine(t.Data)) {
		case FormatOpenbNodes:
			err = ReadOpenbNodes(t.Name, bytes.NewReader(t.Data), work)
		case FormatOpenbPods:
			arr, err = ReadOpenbPods(t.Name, bytes.NewReader(t.Data), work)
		default:
			arr, err = ReadTrace(t.Name, bytes.NewReader(t.Data), work)
		}
		if err != nil {
			return nil, err
		}
		for _, a := range arr {
			if ref := ownerJob(a); ref != "" {
				in.Workloads[a.Pod.Namespace+"/"+ref] = true
			}
		}
		in.Arrivals = append(in.Arrivals, arr...)
	}
	sortArrivals(in.Arrivals)
	names := map[string]string{}
	for _, p := range work.Pods {
		names[p.Namespace+"/"+p.Name] = "the snapshot"
	}
	for _, a := range in.Arrivals {
		key := a.Pod.Namespace + "/" + a.Pod.Name
		if where, dup := names[key]; dup {
			return nil, fmt.Errorf("%s: pod %s arrives, but %s has a pod of that name already", a.Source, key, where)
		}
		names[key] = a.Source
	}
	return in, nil
}

func ownerJob(a Arrival) string {
	for _, or := range a.Pod.OwnerReferences {
		if or.Kind == "Job" {
			return or.Name
		}
	}
	return ""
}

// headerLine is a CSV file's first line that is no comment.
func headerLine(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return ""
}
