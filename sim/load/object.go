package load

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// object is one object to load, a document or a List item, in the form its
// reader gave: the generic map yaml.v3 decodes it into, or a mapping of the
// fast reader's tree. Both answer the same questions the same way.
type object struct {
	generic map[string]any
	tree    *docTree
	node    int32
}

// str returns a top-level field if it is a string.
func (o object) str(key string) string {
	if o.tree == nil {
		s, _ := o.generic[key].(string)
		return s
	}
	return o.tree.str(o.node, key)
}

// name returns metadata.name, prefixed by metadata.namespace if there is
// one.
func (o object) name() string {
	if o.tree == nil {
		return objectName(o.generic)
	}
	md := o.tree.child(o.node, "metadata")
	if md < 0 || o.tree.node(md).kind != treeMap {
		return ""
	}
	name := o.tree.str(md, "name")
	if ns := o.tree.str(md, "namespace"); ns != "" && name != "" {
		return ns + "/" + name
	}
	return name
}

// caseMismatch returns a top-level field name that differs from field
// only in case (the first in sorted order, should there be several).
func (o object) caseMismatch(field string) (string, bool) {
	var found []string
	if o.tree == nil {
		for k := range o.generic {
			if strings.EqualFold(k, field) && k != field {
				found = append(found, k)
			}
		}
	} else {
		for c := o.tree.node(o.node).first; c >= 0; c = o.tree.node(c).next {
			if k := o.tree.node(c).key; strings.EqualFold(k, field) && k != field {
				found = append(found, k)
			}
		}
	}
	if len(found) == 0 {
		return "", false
	}
	return slices.Min(found), true
}

// hasBasicWrapper reports whether some device in spec.devices of mapping
// obj has a `basic` field.
func (t *docTree) hasBasicWrapper(obj int32) bool {
	spec := t.child(obj, "spec")
	if spec < 0 || t.node(spec).kind != treeMap {
		return false
	}
	devices := t.child(spec, "devices")
	if devices < 0 || t.node(devices).kind != treeSeq {
		return false
	}
	for d := t.node(devices).first; d >= 0; d = t.node(d).next {
		if t.node(d).kind == treeMap && t.child(d, "basic") >= 0 {
			return true
		}
	}
	return false
}

// toGeneric returns the object as a generic map, for the conversions that
// rewrite it. A tree goes through its JSON with numbers kept as written, so
// that encoding the map again writes what the tree would have.
func (o object) toGeneric() (object, error) {
	if o.tree == nil {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(o.tree.appendJSON(nil, o.node)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return o, err
	}
	return object{generic: m}, nil
}

// appendJSON appends the object's JSON to b.
func (o object) appendJSON(b []byte) ([]byte, error) {
	if o.tree == nil {
		data, err := json.Marshal(o.generic)
		return append(b, data...), err
	}
	return o.tree.appendJSON(b, o.node), nil
}
