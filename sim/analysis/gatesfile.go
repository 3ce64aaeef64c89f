package analysis

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/drasim/drasim/internal/strictyaml"
	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// gatesDoc is a gates file as YAML, to find the line of a problem.
type gatesDoc struct {
	file string
	root *yaml.Node // nil for an empty file
}

// decodeGates reads a gates file: its header (apiVersion, kind), every
// field that is unknown, given twice or of the wrong kind, all reported at
// once with their lines and gates (*GatesError). g is nil when the file
// cannot be decoded at all; otherwise ParseGates goes on to check the
// gates and adds its problems to these.
func decodeGates(file string, data []byte) (*Gates, *gatesDoc, []error) {
	root, perr := strictyaml.Parse(data)
	if perr != nil {
		return nil, nil, []error{&GatesError{File: file, Index: -1, Line: perr.Line, Msg: perr.Msg}}
	}
	doc := &gatesDoc{file: file, root: root}
	var errs []error
	if root == nil || root.Kind == yaml.MappingNode {
		// The header first: a file of another kind says so before its
		// fields are found unknown.
		for _, h := range []struct{ field, want string }{{"apiVersion", APIVersion}, {"kind", GatesKind}} {
			got := ""
			if n := doc.node(-1, h.field); n != nil && n != root && n.Kind == yaml.ScalarNode {
				got = n.Value
			}
			if got != h.want {
				errs = append(errs, doc.errorf(-1, h.field, "want %q, got %q", h.want, got))
			}
		}
	}
	if root != nil {
		for _, p := range strictyaml.Check(root, reflect.TypeFor[Gates](), "") {
			if p.Path == "apiVersion" || p.Path == "kind" {
				continue // said above
			}
			errs = append(errs, doc.problem(p))
		}
	}
	var g Gates
	if err := sigsyaml.Unmarshal(data, &g); err != nil {
		if len(errs) == 0 {
			// Check found nothing the decoder refuses: say it as
			// plainly as possible all the same.
			errs = append(errs, &GatesError{File: file, Index: -1, Msg: strings.TrimPrefix(strings.TrimPrefix(err.Error(), "error unmarshaling JSON: while decoding JSON: "), "json: ")})
		}
		return nil, doc, errs
	}
	return &g, doc, errs
}

// problem turns a strictyaml problem into a GatesError about its gate.
func (d *gatesDoc) problem(p strictyaml.Problem) error {
	index, field := -1, p.Path
	if rest, ok := strings.CutPrefix(p.Path, "gates["); ok {
		if n, after, ok := strings.Cut(rest, "]"); ok {
			fmt.Sscan(n, &index)
			field = strings.TrimPrefix(after, ".")
		}
	}
	return &GatesError{File: d.file, Gate: d.gateName(index), Index: index, Line: p.Line, Field: field, Msg: p.Msg}
}

// errorf makes a GatesError about a field of gate i (-1: of the file),
// at the field's line (or its nearest parent's).
func (d *gatesDoc) errorf(i int, field, format string, args ...any) error {
	line := 0
	if d != nil && d.root != nil {
		line = d.node(i, field).Line
	}
	return &GatesError{File: d.file, Gate: d.gateName(i), Index: i, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// node is the node of a field of gate i (-1: of the file), or the nearest
// one on its way.
func (d *gatesDoc) node(i int, field string) *yaml.Node {
	path := field
	if i >= 0 {
		path = fmt.Sprintf("gates[%d]", i)
		if field != "" {
			path += "." + field
		}
	}
	return strictyaml.Locate(d.root, path)
}

// gateName is the name of gate i as the file gives it ("" for none).
func (d *gatesDoc) gateName(i int) string {
	if d == nil || i < 0 || d.root == nil {
		return ""
	}
	gate := strictyaml.Locate(d.root, fmt.Sprintf("gates[%d]", i))
	if n := strictyaml.Locate(gate, "name"); n != gate && n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return ""
}

// CheckNodeGroups refuses, before any replay, a domainLoss gate whose
// spares name a NodeGroup that groups (the snapshot's) does not have.
func (g *Gates) CheckNodeGroups(groups []string) error {
	var errs []error
	for i, gate := range g.Gates {
		if gate.DomainLoss == nil || gate.DomainLoss.Spares == nil {
			continue
		}
		name := gate.DomainLoss.Spares.NodeGroup
		if name == "" || slices.Contains(groups, name) {
			continue
		}
		has := "it has none"
		if len(groups) > 0 {
			has = "it has " + strings.Join(slices.Sorted(slices.Values(groups)), ", ")
		}
		doc := g.doc
		if doc == nil {
			doc = &gatesDoc{file: g.File}
		}
		errs = append(errs, doc.errorf(i, GateDomainLoss+".spares.nodeGroup", "no NodeGroup %q in the snapshot (%s)", name, has))
	}
	return errors.Join(errs...)
}
