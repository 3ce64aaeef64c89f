package strictyaml

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/drasim/drasim/internal/suggest"
	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// Problem is one problem of a document.
type Problem struct {
	// Line is 1-based; 0 when unknown.
	Line int
	// Path is where in the document: "gates[1].maxPendingPods.max", ""
	// for the document itself.
	Path string
	Msg  string
}

func (p Problem) Error() string {
	if p.Path == "" {
		return p.Msg
	}
	return p.Path + ": " + p.Msg
}

// Parse returns the root of data's first document (nil for an empty
// document), or the syntax error with its line.
func Parse(data []byte) (*yaml.Node, *Problem) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxProblem(err)
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return nil, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

func syntaxProblem(err error) *Problem {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Problem{Line: line, Msg: "not valid YAML: " + msg[len(m[0]):]}
	}
	return &Problem{Msg: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// Check reports, in document order, every field of n that t (the type
// the document is decoded into) has no place for, every field given
// twice, and every value that does not decode into its field's type.
// path prefixes the paths of the problems ("" at the document's root).
func Check(n *yaml.Node, t reflect.Type, path string) []Problem {
	var c checker
	c.check(n, t, path)
	return c.problems
}

type checker struct{ problems []Problem }

func (c *checker) add(n *yaml.Node, path, format string, args ...any) {
	c.problems = append(c.problems, Problem{Line: n.Line, Path: path, Msg: fmt.Sprintf(format, args...)})
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

func (c *checker) check(n *yaml.Node, t reflect.Type, path string) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // null leaves any field at its zero value
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		c.leaf(n, t, path)
		return
	}
	switch t.Kind() {
	case reflect.Interface:
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			c.add(n, path, "want a mapping (field: value), got %s", shown(n))
			return
		}
		fields := structFields(t)
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if prev, dup := seen[k.Value]; dup {
				c.add(k, join(path, k.Value), "given twice (also line %d)", prev)
				continue
			}
			seen[k.Value] = k.Line
			ft, ok := fields.lookup(k.Value)
			if !ok {
				if near := suggest.Closest(k.Value, fields.names); near != "" {
					c.add(k, path, "unknown field %q (did you mean %s?)", k.Value, near)
				} else {
					c.add(k, path, "unknown field %q; the fields are %s", k.Value, strings.Join(fields.names, ", "))
				}
				continue
			}
			c.check(v, ft, join(path, k.Value))
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			c.add(n, path, "want a mapping, got %s", shown(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			c.check(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			c.leaf(n, t, path) // []byte: a base64 string
			return
		}
		if n.Kind != yaml.SequenceNode {
			c.add(n, path, "want a list, got %s", shown(n))
			return
		}
		for i, item := range n.Content {
			c.check(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	default:
		c.leaf(n, t, path)
	}
}

// leaf decodes n alone into a new t, as sigs.k8s.io/yaml decodes it in
// the document, to report its problem with its own path.
func (c *checker) leaf(n *yaml.Node, t reflect.Type, path string) {
	data, err := yaml.Marshal(n)
	if err != nil {
		c.add(n, path, "%v", err)
		return
	}
	if err := sigsyaml.Unmarshal(data, reflect.New(t).Interface()); err != nil {
		c.add(n, path, "%s", valueProblem(err, t, n))
	}
}

// valueProblem says what is wrong with a value, in YAML's words.
func valueProblem(err error, t reflect.Type, n *yaml.Node) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("want %s, got %s", want(t), shown(n))
	}
	msg := err.Error()
	for _, prefix := range []string{"error unmarshaling JSON: ", "error converting YAML to JSON: ", "while decoding JSON: ", "json: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	if strings.HasPrefix(msg, "time: ") {
		return fmt.Sprintf("want a duration such as 90s, 10m or 1h30m, got %s", shown(n))
	}
	return msg
}

// want names what a type takes.
func want(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "a mapping"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return t.String()
}

// shown renders a value for a message.
func shown(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	if n.Tag == "!!str" {
		return strconv.Quote(n.Value)
	}
	return n.Value
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fieldSet is the fields a struct takes in a document, by JSON name.
type fieldSet struct {
	names []string // in the struct's order
	types map[string]reflect.Type
}

// lookup finds a key's field: by its exact name, else ignoring case, as
// encoding/json matches keys.
func (f fieldSet) lookup(key string) (reflect.Type, bool) {
	if t, ok := f.types[key]; ok {
		return t, true
	}
	for _, name := range f.names {
		if strings.EqualFold(name, key) {
			return f.types[name], true
		}
	}
	return nil, false
}

// structFields are t's fields as encoding/json sees them: named by the
// json tag (else the Go name), "-" left out, embedded structs without a
// name promoted.
func structFields(t reflect.Type) fieldSet {
	f := fieldSet{types: map[string]reflect.Type{}}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			sf := t.Field(i)
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			ft := sf.Type
			if sf.Anonymous && name == "" {
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if _, dup := f.types[name]; !dup {
				f.names = append(f.names, name)
				f.types[name] = sf.Type
			}
		}
	}
	walk(t)
	return f
}

// Locate returns the node at path under n ("gates[1].maxPendingPods.max"),
// or the deepest node on the way that exists (the mapping that lacks a
// required field), and n itself when nothing of path does.
func Locate(n *yaml.Node, path string) *yaml.Node {
	if n == nil || path == "" {
		return n
	}
	for _, part := range splitPath(path) {
		next := child(n, part)
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// splitPath splits "a[1].b" into "a", "[1]", "b".
func splitPath(path string) []string {
	var parts []string
	for _, field := range strings.Split(path, ".") {
		for {
			i := strings.IndexByte(field, '[')
			if i < 0 {
				break
			}
			if i > 0 {
				parts = append(parts, field[:i])
			}
			j := strings.IndexByte(field, ']')
			if j < i {
				break
			}
			parts = append(parts, field[i:j+1])
			field = field[j+1:]
		}
		if field != "" {
			parts = append(parts, field)
		}
	}
	return parts
}

func child(n *yaml.Node, part string) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if strings.HasPrefix(part, "[") {
		i, err := strconv.Atoi(strings.Trim(part, "[]"))
		if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == part {
			return n.Content[i+1]
		}
	}
	return nil
}
