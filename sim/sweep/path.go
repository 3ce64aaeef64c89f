package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A metric path points at one number in a command's JSON output:
//
//	summary.unschedulable               a field of an object, then a field of that
//	scaleUp[0].to                       an element of a list (negative: from the end)
//	scaleUp[group=h100].to              the first element whose field group is h100
//	utilization.classes[name!=cpu]      the first element whose field name is not cpu
//	pods.#                              the length of a list (or an object's key count)
//	pods.#[phase=Unschedulable]         how many elements of a list have phase Unschedulable
//	pods[*].claims[*].devices.#         every element of a list: the sum of what the rest gives
//
// An element without the key of [key=value] or [key!=value] matches
// neither. Under [*], elements where the rest of the path leads nowhere add
// nothing. Values in brackets may be double-quoted (to hold ']'). The
// number at the end may be a JSON number or a bool (1 or 0).
// docs/sweeps.md lists useful paths per command.
type Path struct {
	text  string
	steps []step
}

type stepKind int

const (
	stepField stepKind = iota
	stepIndex
	stepMatch
	stepCount
	stepCountMatch
	stepEach
)

type step struct {
	kind  stepKind
	name  string // field name
	index int
	key   string // match: the element's field
	value string // match: the value it must (not) have
	neg   bool
}

// String returns the path as written.
func (p *Path) String() string { return p.text }

// ParsePath compiles a metric path.
func ParsePath(s string) (*Path, error) {
	p := &Path{text: s}
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty path")
	}
	i := 0
	for {
		if i >= len(s) {
			return nil, fmt.Errorf("path %q ends with '.'", s)
		}
		switch {
		case s[i] == '#':
			i++
			if i < len(s) && s[i] == '[' {
				st, n, err := parseSelector(s, i)
				if err != nil {
					return nil, err
				}
				if st.kind != stepMatch {
					return nil, fmt.Errorf("path %q: #[...] counts the elements that match key=value, got [%s]", s, s[i+1:i+n-1])
				}
				st.kind = stepCountMatch
				p.steps = append(p.steps, st)
				i += n
			} else {
				p.steps = append(p.steps, step{kind: stepCount})
			}
			if i != len(s) {
				return nil, fmt.Errorf("path %q: # must be the last step", s)
			}
			return p, nil
		case s[i] == '[':
			// A selector on the value so far (the document itself may be a list).
		default:
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				if s[j] == ']' || s[j] == '=' || s[j] == ' ' {
					return nil, fmt.Errorf("path %q: unexpected %q at offset %d", s, s[j], j)
				}
				j++
			}
			p.steps = append(p.steps, step{kind: stepField, name: s[i:j]})
			i = j
		}
		for i < len(s) && s[i] == '[' {
			st, n, err := parseSelector(s, i)
			if err != nil {
				return nil, err
			}
			p.steps = append(p.steps, st)
			i += n
		}
		if i == len(s) {
			return p, nil
		}
		if s[i] != '.' {
			return nil, fmt.Errorf("path %q: want '.' or '[' at offset %d, got %q", s, i, s[i])
		}
		i++
	}
}

// parseSelector reads "[...]" at s[i] and returns the step and its length.
func parseSelector(s string, i int) (step, int, error) {
	j := i + 1
	var content strings.Builder
	inQuote := false
	for ; j < len(s); j++ {
		c := s[j]
		if c == '"' {
			inQuote = !inQuote
			content.WriteByte(c)
			continue
		}
		if c == '\\' && inQuote && j+1 < len(s) {
			content.WriteByte(c)
			content.WriteByte(s[j+1])
			j++
			continue
		}
		if c == ']' && !inQuote {
			break
		}
		content.WriteByte(c)
	}
	if j >= len(s) {
		return step{}, 0, fmt.Errorf("path %q: '[' at offset %d is not closed", s, i)
	}
	n := j - i + 1
	text := content.String()
	if text == "*" {
		return step{kind: stepEach}, n, nil
	}
	if idx, err := strconv.Atoi(text); err == nil {
		return step{kind: stepIndex, index: idx}, n, nil
	}
	op, neg := "=", false
	k := strings.Index(text, "!=")
	if k >= 0 {
		op, neg = "!=", true
	} else {
		k = strings.Index(text, "=")
	}
	if k <= 0 {
		return step{}, 0, fmt.Errorf("path %q: [%s]: want an index or key=value", s, text)
	}
	key := strings.TrimSpace(text[:k])
	value := strings.TrimSpace(text[k+len(op):])
	if strings.HasPrefix(value, `"`) {
		unq, err := strconv.Unquote(value)
		if err != nil {
			return step{}, 0, fmt.Errorf("path %q: [%s]: %v", s, text, err)
		}
		value = unq
	}
	return step{kind: stepMatch, key: key, value: value, neg: neg}, n, nil
}

// errMissing marks a path that leads to a field the output does not have;
// a metric's default applies then.
var errMissing = errors.New("not in the output")

// document is one run's JSON output, with the objects and lists already
// decoded on the way to earlier metrics kept, so that several metrics under
// one prefix decode it once.
type document struct {
	raw json.RawMessage
	// checked and valid: the output is checked to be JSON once; the
	// scanners below then take it apart without checking again.
	checked, valid bool
	objects        map[string]map[string]json.RawMessage
	lists          map[string][]json.RawMessage
}

func newDocument(raw []byte) *document {
	return &document{raw: raw, objects: map[string]map[string]json.RawMessage{}, lists: map[string][]json.RawMessage{}}
}

func (d *document) object(prefix string, v json.RawMessage) (map[string]json.RawMessage, error) {
	if m, ok := d.objects[prefix]; ok {
		return m, nil
	}
	if kindOf(v) != '{' {
		return nil, fmt.Errorf("%s is %s, not an object", describePrefix(prefix), kindName(v))
	}
	m, err := scanObject(v)
	if err != nil {
		return nil, err
	}
	d.objects[prefix] = m
	return m, nil
}

func (d *document) list(prefix string, v json.RawMessage) ([]json.RawMessage, error) {
	if l, ok := d.lists[prefix]; ok {
		return l, nil
	}
	if kindOf(v) != '[' {
		return nil, fmt.Errorf("%s is %s, not a list", describePrefix(prefix), kindName(v))
	}
	l, err := scanList(v)
	if err != nil {
		return nil, err
	}
	d.lists[prefix] = l
	return l, nil
}

func describePrefix(prefix string) string {
	if prefix == "" {
		return "the output"
	}
	return prefix
}

func kindOf(v json.RawMessage) byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

func kindName(v json.RawMessage) string {
	switch kindOf(v) {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a bool"
	case 'n':
		return "null"
	}
	return "a number"
}

// eval follows the path through the document and returns the number it
// ends at (the sum of the numbers it ends at, under [*]).
func (p *Path) eval(d *document) (float64, error) {
	if !d.checked {
		d.checked, d.valid = true, json.Valid(d.raw)
	}
	if !d.valid {
		return 0, fmt.Errorf("the command's output is not JSON")
	}
	return p.walk(d, d.raw, "", 0)
}

// walk follows the steps from i on, from cur (the value at prefix).
func (p *Path) walk(d *document, cur json.RawMessage, prefix string, i int) (float64, error) {
	for ; i < len(p.steps); i++ {
		st := p.steps[i]
		switch st.kind {
		case stepField:
			m, err := d.object(prefix, cur)
			if err != nil {
				return 0, err
			}
			v, ok := m[st.name]
			if !ok || kindOf(v) == 'n' {
				return 0, fmt.Errorf("%s has no field %q (fields: %s): %w", describePrefix(prefix), st.name, keys(m), errMissing)
			}
			cur = v
			if prefix != "" {
				prefix += "."
			}
			prefix += st.name
		case stepIndex:
			l, err := d.list(prefix, cur)
			if err != nil {
				return 0, err
			}
			j := st.index
			if j < 0 {
				j += len(l)
			}
			if j < 0 || j >= len(l) {
				return 0, fmt.Errorf("%s has %d element(s), no [%d]: %w", describePrefix(prefix), len(l), st.index, errMissing)
			}
			cur = l[j]
			prefix += fmt.Sprintf("[%d]", j)
		case stepMatch:
			l, err := d.list(prefix, cur)
			if err != nil {
				return 0, err
			}
			found := -1
			for j, el := range l {
				ok, err := matches(el, st)
				if err != nil {
					return 0, fmt.Errorf("%s[%d]: %w", describePrefix(prefix), j, err)
				}
				if ok {
					found = j
					break
				}
			}
			if found < 0 {
				return 0, fmt.Errorf("no element of %s has %s: %w", describePrefix(prefix), selectorText(st), errMissing)
			}
			cur = l[found]
			prefix += fmt.Sprintf("[%d]", found)
		case stepEach:
			l, err := d.list(prefix, cur)
			if err != nil {
				return 0, err
			}
			sum := 0.0
			for j, el := range l {
				v, err := p.walk(d, el, fmt.Sprintf("%s[%d]", prefix, j), i+1)
				switch {
				case errors.Is(err, errMissing):
				case err != nil:
					return 0, err
				default:
					sum += v
				}
			}
			return sum, nil
		case stepCount:
			if kindOf(cur) == '{' {
				m, err := d.object(prefix, cur)
				return float64(len(m)), err
			}
			l, err := d.list(prefix, cur)
			return float64(len(l)), err
		case stepCountMatch:
			l, err := d.list(prefix, cur)
			if err != nil {
				return 0, err
			}
			n := 0
			for j, el := range l {
				ok, err := matches(el, st)
				if err != nil {
					return 0, fmt.Errorf("%s[%d]: %w", describePrefix(prefix), j, err)
				}
				if ok {
					n++
				}
			}
			return float64(n), nil
		}
	}
	return number(prefix, cur)
}

func selectorText(st step) string {
	op := "="
	if st.neg {
		op = "!="
	}
	return st.key + op + st.value
}

// matches reports whether a list element (an object) has the step's
// key=value (or key!=value); an element without the key matches neither.
func matches(el json.RawMessage, st step) (bool, error) {
	if kindOf(el) != '{' {
		return false, fmt.Errorf("is %s, not an object with field %q", kindName(el), st.key)
	}
	v, ok, err := field(el, st.key)
	if err != nil {
		return false, err
	}
	if !ok || kindOf(v) == 'n' {
		return false, nil
	}
	text, err := scalar(v)
	if err != nil {
		return false, fmt.Errorf("field %q: %v", st.key, err)
	}
	return (text == st.value) != st.neg, nil
}

// number reads the value a path ends at.
func number(prefix string, v json.RawMessage) (float64, error) {
	switch kindOf(v) {
	case 't':
		return 1, nil
	case 'f':
		return 0, nil
	case '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return 0, fmt.Errorf("%s is a string (%q), not a number", describePrefix(prefix), s)
	case '{', '[':
		return 0, fmt.Errorf("%s is %s, not a number: add a field, an index or .#", describePrefix(prefix), kindName(v))
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", describePrefix(prefix), err)
	}
	return f, nil
}

func keys(m map[string]json.RawMessage) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// The scanners take valid JSON apart without decoding or copying it:
// metrics read a few numbers from outputs of megabytes (a result lists
// every pod), and counting matches among a thousand pods would otherwise
// build a thousand maps.

// scanObject returns an object's values by key, as slices of obj.
func scanObject(obj []byte) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	err := eachField(obj, func(name []byte, value json.RawMessage) {
		key := string(name[1 : len(name)-1])
		if bytes.IndexByte(name, '\\') >= 0 {
			_ = json.Unmarshal(name, &key)
		}
		m[key] = value
	})
	return m, err
}

// scanList returns a list's elements, as slices of list.
func scanList(list []byte) ([]json.RawMessage, error) {
	i := skipSpace(list, 0)
	if i >= len(list) || list[i] != '[' {
		return nil, fmt.Errorf("not a list")
	}
	out := []json.RawMessage{}
	i = skipSpace(list, i+1)
	for i < len(list) && list[i] != ']' {
		end, err := skipValue(list, i)
		if err != nil {
			return nil, err
		}
		out = append(out, list[i:end])
		i = skipSpace(list, end)
		if i < len(list) && list[i] == ',' {
			i = skipSpace(list, i+1)
		}
	}
	return out, nil
}

// field returns the value of one key of an object (the last, when a key
// repeats, as in encoding/json).
func field(obj []byte, key string) (json.RawMessage, bool, error) {
	var found json.RawMessage
	err := eachField(obj, func(name []byte, value json.RawMessage) {
		if matchesKey(name, key) {
			found = value
		}
	})
	return found, found != nil, err
}

// eachField calls f with every key (quoted, as written) and value of an
// object.
func eachField(obj []byte, f func(name []byte, value json.RawMessage)) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return fmt.Errorf("not an object")
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return fmt.Errorf("unterminated object")
		}
		if obj[i] == '}' {
			return nil
		}
		end, err := skipValue(obj, i)
		if err != nil {
			return err
		}
		name := obj[i:end]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return fmt.Errorf("malformed object")
		}
		start := skipSpace(obj, i+1)
		if end, err = skipValue(obj, start); err != nil {
			return err
		}
		f(name, obj[start:end])
		i = skipSpace(obj, end)
		if i < len(obj) && obj[i] == ',' {
			i++
		}
	}
}

// matchesKey compares a JSON string (quotes included) with key.
func matchesKey(quoted []byte, key string) bool {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return len(quoted) == len(key)+2 && string(quoted[1:len(quoted)-1]) == key
	}
	var s string
	return json.Unmarshal(quoted, &s) == nil && s == key
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, fmt.Errorf("unexpected end of JSON")
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
		return 0, fmt.Errorf("unterminated string")
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipValue(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, fmt.Errorf("unterminated object or list")
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	return j, nil
}
