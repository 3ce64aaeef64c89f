package load

import (
	"encoding/binary"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// docTree is one document as the fast reader (fastread.go) reads it: a tree
// of mappings, sequences and scalars in one reusable arena. It holds only
// what yaml.v3 would decode into plain strings, numbers, booleans, nulls,
// maps with string keys and lists, so that it stands for the generic map
// yaml.v3 gives exactly; anything else sends the document to yaml.v3.
type docTree struct {
	// chunks hold the nodes, treeChunk to a chunk, so that a large
	// document's tree grows without being copied. They are reused from
	// document to document.
	chunks [][]treeNode
	n      int32 // nodes in use
	// scratch holds child indices while mappings are checked and written.
	scratch []int32
}

const (
	treeChunkBits = 12
	treeChunk     = 1 << treeChunkBits
)

// node returns node i.
func (t *docTree) node(i int32) *treeNode {
	return &t.chunks[i>>treeChunkBits][i&(treeChunk-1)]
}

type treeNodeKind uint8

const (
	treeMap treeNodeKind = iota
	treeSeq
	treeScalar
)

// scalarKind is what a scalar decodes to, as yaml.v3 resolves it.
type scalarKind uint8

const (
	scalarString scalarKind = iota
	scalarNull
	scalarBool
	scalarNumber
	// scalarTime is an unquoted timestamp, which yaml.v3 decodes into a
	// time.Time (and encoding/json writes in RFC 3339).
	scalarTime
)

type treeNode struct {
	kind   treeNodeKind
	scalar scalarKind
	// sorted is set on mappings whose keys are in the order encoding/json
	// writes them.
	sorted bool
	line   int32
	// key is the node's key when its parent is a mapping.
	key string
	// value is a string scalar's value, or the JSON text of any other
	// scalar.
	value string
	// first and last are the first and last child, next the next sibling;
	// -1 when there is none.
	first, last, next int32
	children          int32
}

func (t *docTree) reset() {
	t.n = 0
	t.scratch = t.scratch[:0]
}

// add appends a node and links it as the last child of parent (-1 for the
// root).
func (t *docTree) add(parent int32, n treeNode) int32 {
	n.first, n.last, n.next = -1, -1, -1
	i := t.n
	if int(i>>treeChunkBits) == len(t.chunks) {
		t.chunks = append(t.chunks, make([]treeNode, treeChunk))
	}
	*t.node(i) = n
	t.n++
	if parent >= 0 {
		p := t.node(parent)
		if p.last >= 0 {
			t.node(p.last).next = i
		} else {
			p.first = i
		}
		p.last = i
		p.children++
	}
	return i
}

// child returns the value of key in mapping m, or -1.
func (t *docTree) child(m int32, key string) int32 {
	for c := t.node(m).first; c >= 0; c = t.node(c).next {
		if t.node(c).key == key {
			return c
		}
	}
	return -1
}

// str returns the value of key in mapping m if it is a string, else "" (as
// a type assertion to string on the generic map does).
func (t *docTree) str(m int32, key string) string {
	c := t.child(m, key)
	if c < 0 || t.node(c).kind != treeScalar || t.node(c).scalar != scalarString {
		return ""
	}
	return t.node(c).value
}

// checkKeys reports whether mapping m has no key twice (yaml.v3 rejects
// such a mapping when it decodes it), and records whether its keys are
// already sorted.
func (t *docTree) checkKeys(m int32) bool {
	n := t.node(m)
	n.sorted = true
	prev := ""
	for c := n.first; c >= 0; c = t.node(c).next {
		k := t.node(c).key
		if c != n.first && k <= prev {
			n.sorted = false
			break
		}
		prev = k
	}
	if n.sorted {
		return true
	}
	base := len(t.scratch)
	for c := n.first; c >= 0; c = t.node(c).next {
		t.scratch = append(t.scratch, c)
	}
	keys := t.scratch[base:]
	slices.SortFunc(keys, func(a, b int32) int { return strings.Compare(t.node(a).key, t.node(b).key) })
	ok := true
	for i := 1; i < len(keys); i++ {
		if t.node(keys[i]).key == t.node(keys[i-1]).key {
			ok = false
			break
		}
	}
	t.scratch = t.scratch[:base]
	return ok
}

// appendJSON writes node i as json.Marshal writes the value yaml.v3 decodes
// it into: mapping keys sorted, strings escaped the same way.
func (t *docTree) appendJSON(b []byte, i int32) []byte {
	n := t.node(i)
	switch n.kind {
	case treeScalar:
		if n.scalar == scalarString {
			return appendJSONString(b, n.value)
		}
		return append(b, n.value...)
	case treeSeq:
		b = append(b, '[')
		for c := n.first; c >= 0; c = t.node(c).next {
			if c != n.first {
				b = append(b, ',')
			}
			b = t.appendJSON(b, c)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	if n.sorted {
		for c := n.first; c >= 0; c = t.node(c).next {
			if c != n.first {
				b = append(b, ',')
			}
			b = appendJSONString(b, t.node(c).key)
			b = append(b, ':')
			b = t.appendJSON(b, c)
		}
		return append(b, '}')
	}
	base := len(t.scratch)
	for c := n.first; c >= 0; c = t.node(c).next {
		t.scratch = append(t.scratch, c)
	}
	slices.SortFunc(t.scratch[base:], func(x, y int32) int { return strings.Compare(t.node(x).key, t.node(y).key) })
	// The recursion below appends to scratch too; index it, not a slice of
	// it, since appending may move it.
	for j := base; j < base+int(n.children); j++ {
		c := t.scratch[j]
		if j != base {
			b = append(b, ',')
		}
		b = appendJSONString(b, t.node(c).key)
		b = append(b, ':')
		b = t.appendJSON(b, c)
	}
	t.scratch = t.scratch[:base]
	return append(b, '}')
}

// appendKey appends an encoding of node i's content that two nodes share
// only if they hold the same content in the same order: scalars by their
// kind and text, mappings by their keys in order. It is a cache key, and
// cheaper than the node's JSON: nothing is escaped or sorted. Every part
// is marked or length-prefixed, so no two contents give the same key.
func (t *docTree) appendKey(b []byte, i int32) []byte {
	n := t.node(i)
	switch n.kind {
	case treeScalar:
		b = append(b, 's', byte(n.scalar))
		b = binary.AppendUvarint(b, uint64(len(n.value)))
		return append(b, n.value...)
	case treeSeq:
		b = append(b, '[')
		for c := n.first; c >= 0; c = t.node(c).next {
			b = t.appendKey(b, c)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for c := n.first; c >= 0; c = t.node(c).next {
		k := t.node(c).key
		b = append(b, 'k')
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		b = t.appendKey(b, c)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as encoding/json does (HTML-safe). The fast
// reader only admits ASCII, so no UTF-8 handling is needed.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c < 0x80 {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			// Control characters and <, >, & as \u00XX. Bytes of 0x80 and
			// up never get here (see above) but would be written as is.
			if c >= 0x80 {
				b = append(b, c)
			} else {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// yamlStyleFloat is yaml.v3's test for a decimal float.
var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// resolvePlain tells what yaml.v3 decodes an untagged plain scalar into,
// following resolve("", in) in go.yaml.in/yaml/v3 resolve.go, and returns
// the JSON text json.Marshal writes for that value (the string itself for a
// string). ok is false where the generic map path does something the tree
// cannot stand for: NaN and infinities (json.Marshal fails on them) and the
// merge key <<.
func resolvePlain(in string) (kind scalarKind, text string, ok bool) {
	if in == "" {
		return scalarNull, "null", true
	}
	c := in[0]
	switch {
	case c == '+' || c == '-' || c >= '0' && c <= '9' || c == '.':
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
	case c == '<':
		if in == "<<" {
			return 0, "", false
		}
		return scalarString, in, true
	default:
		return scalarString, in, true
	}
	switch in {
	case "true", "True", "TRUE":
		return scalarBool, "true", true
	case "false", "False", "FALSE":
		return scalarBool, "false", true
	case "~", "null", "Null", "NULL":
		return scalarNull, "null", true
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return 0, "", false
	}
	if !numeric(in) {
		// Most of these are quantities such as 80Gi: spare strconv the
		// errors it would allocate.
		return scalarString, in, true
	}
	switch {
	case c == '.':
		if f, err := strconv.ParseFloat(in, 64); err == nil {
			return floatText(f)
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		if ts, isTime := parseTimestamp(in); isTime {
			data, err := json.Marshal(ts)
			if err != nil {
				return 0, "", false
			}
			return scalarTime, string(data), true
		}
		plain := strings.ReplaceAll(in, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return scalarNumber, strconv.FormatInt(i, 10), true
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return scalarNumber, strconv.FormatUint(u, 10), true
		}
		if yamlStyleFloat.MatchString(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return floatText(f)
			}
		}
		if strings.HasPrefix(plain, "0b") {
			if i, err := strconv.ParseInt(plain[2:], 2, 64); err == nil {
				return scalarNumber, strconv.FormatInt(i, 10), true
			}
			if u, err := strconv.ParseUint(plain[2:], 2, 64); err == nil {
				return scalarNumber, strconv.FormatUint(u, 10), true
			}
		} else if strings.HasPrefix(plain, "-0b") {
			if i, err := strconv.ParseInt("-"+plain[3:], 2, 64); err == nil {
				return scalarNumber, strconv.FormatInt(i, 10), true
			}
		}
		if strings.HasPrefix(plain, "0o") {
			if i, err := strconv.ParseInt(plain[2:], 8, 64); err == nil {
				return scalarNumber, strconv.FormatInt(i, 10), true
			}
			if u, err := strconv.ParseUint(plain[2:], 8, 64); err == nil {
				return scalarNumber, strconv.FormatUint(u, 10), true
			}
		} else if strings.HasPrefix(plain, "-0o") {
			if i, err := strconv.ParseInt("-"+plain[3:], 8, 64); err == nil {
				return scalarNumber, strconv.FormatInt(i, 10), true
			}
		}
	}
	return scalarString, in, true
}

// numeric reports whether in holds only characters that the number and
// timestamp parsers below can accept (digits, hex digits, base prefixes,
// signs, separators, exponents, and the T, Z, colon, space and comma of
// timestamps). If not, none of them can succeed.
func numeric(in string) bool {
	for i := 0; i < len(in); i++ {
		switch c := in[i]; {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		case strings.IndexByte("xXoOtTzZ+-_.:, ", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func floatText(f float64) (scalarKind, string, bool) {
	data, err := json.Marshal(f)
	if err != nil {
		return 0, "", false
	}
	return scalarNumber, string(data), true
}

// timestampFormats and parseTimestamp are yaml.v3's.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

func parseTimestamp(s string) (time.Time, bool) {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return time.Time{}, false
	}
	for _, format := range timestampFormats {
		if t, err := time.Parse(format, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
