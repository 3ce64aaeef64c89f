package report

import (
	"fmt"

	"github.com/drasim/drasim/sim/analysis"
)

// DeviceMapID is the HTML element of the device map; tests look for it.
const DeviceMapID = "device-map"

// deviceMapView is one device map as the page template draws it.
type deviceMapView struct {
	ID     string
	Title  string
	Groups []mapGroupView
	Note   string
}

type mapGroupView struct {
	Title string
	Nodes []mapNodeView
}

type mapNodeView struct {
	Name    string
	Title   string
	Columns int
	Cells   []mapCellView
}

type mapCellView struct {
	State string
	Title string
}

type legendEntry struct {
	State string
	Label string
}

// deviceMapViews lays out the report's device maps: before and after the
// edits side by side, or the one map of the replay.
func deviceMapViews(r *analysis.Report) ([]deviceMapView, []legendEntry) {
	if r.DeviceMap == nil {
		return nil, nil
	}
	var views []deviceMapView
	if r.DeviceMapBefore != nil {
		views = append(views, mapView(DeviceMapID+"-before", "Before the edits", r.DeviceMapBefore))
		views = append(views, mapView(DeviceMapID+"-after", "After the edits", r.DeviceMap))
	} else {
		views = append(views, mapView(DeviceMapID+"-after", "After the replay", r.DeviceMap))
	}
	var legend []legendEntry
	for _, c := range r.DeviceMap.Counts {
		legend = append(legend, legendEntry{State: c.State, Label: fmt.Sprintf("%s (%d)", c.State, c.Devices)})
	}
	return views, legend
}

func mapView(id, title string, m *analysis.DeviceMap) deviceMapView {
	v := deviceMapView{ID: id, Title: title}
	for _, g := range m.Groups {
		gv := mapGroupView{Title: fmt.Sprintf("%s: %d node(s)", g.Name, len(g.Nodes)+g.Hidden)}
		if g.Hidden > 0 {
			gv.Title += fmt.Sprintf(", %d not drawn", g.Hidden)
		}
		for _, n := range g.Nodes {
			nv := mapNodeView{Name: n.Name, Title: fmt.Sprintf("%s: %d device(s)", n.Name, len(n.Devices)), Columns: min(len(n.Devices), 8)}
			if n.Unschedulable {
				nv.Title += ", cordoned"
				nv.Name += " (cordoned)"
			}
			for _, c := range n.Devices {
				nv.Cells = append(nv.Cells, mapCellView{State: c.State, Title: c.Device + ": " + c.State})
			}
			gv.Nodes = append(gv.Nodes, nv)
		}
		v.Groups = append(v.Groups, gv)
	}
	if len(m.Groups) == 0 {
		v.Note = "No devices."
	}
	if m.HiddenNodes > 0 {
		v.Note = fmt.Sprintf("%d node(s) not drawn: the map shows at most %d devices.", m.HiddenNodes, analysis.MaxMapDevices)
	}
	return v
}
