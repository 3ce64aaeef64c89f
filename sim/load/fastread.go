package load

import "strings"

// The fast reader reads the block YAML that `kubectl get -o yaml`,
// sigs.k8s.io/yaml and `drasim generate` write (block mappings and
// sequences; plain, single-line quoted and literal scalars; comments), and
// JSON (`kubectl get -o json`, and flow collections in JSON syntax within
// block YAML), straight into a docTree, at a fraction of what building a
// yaml.v3 tree and a generic map costs. It is deliberately narrow: on
// anything else (YAML's own flow syntax, anchors, tags, folded or
// multi-line quoted scalars, tabs, carriage returns, non-ASCII text,
// directives, broken indentation, anything yaml.v3 would reject) it gives
// up, and the loader reads the file with yaml.v3 instead. What it accepts,
// it reads exactly as yaml.v3 does; the tests hold it to that.

// fastReader reads a file's documents one by one.
type fastReader struct {
	s    string
	pos  int // start of the next document
	line int // its first line's number
	// started is set once the first document has begun; done once the
	// last has been read.
	started, done bool
	// more is set when s is a chunk of the file that ends after a "---"
	// line, and more text follows: a document that would start at the end
	// of s starts in the next chunk (see continueWith).
	more bool
	tree docTree
	// keep leaves the documents read before in tree: the next one is
	// added after them (see readPiece).
	keep bool
	doc  docReader
}

func newFastReader(s string) *fastReader {
	return &fastReader{s: s, line: 1}
}

// next reads the next document into r.tree. It returns ok=false when the
// fast reader cannot read it, and eof=true when there are no more
// documents. empty is set for a document without content (yaml.v3 gives a
// null document). root is the tree's root mapping.
func (r *fastReader) next() (root int32, empty, ok, eof bool) {
	if r.done {
		return -1, false, true, true
	}
	d := &r.doc
	*d = docReader{s: r.s, limit: len(r.s), next: -1, t: &r.tree}
	d.setLine(r.pos, r.line)
	if !r.started {
		// Before the first document, comments and blank lines are no
		// document. A "---" opens the first; any other line starts it.
		for d.pos < d.limit && blankOrComment(d.current()) {
			d.advance()
		}
		switch {
		case d.bad:
			return -1, false, false, false
		case d.next >= 0:
			pos, line := d.next, d.nextLine
			*d = docReader{s: r.s, limit: len(r.s), next: -1, t: &r.tree}
			d.setLine(pos, line)
		case d.pos >= len(r.s):
			r.line, r.done = d.line, true
			return -1, false, true, true
		}
		r.started = true
	}
	if r.more && d.pos >= len(r.s) {
		r.pos, r.line, r.done = d.pos, d.line, true
		return -1, false, true, true
	}
	if !r.keep {
		r.tree.reset()
	}
	root, empty, ok = d.read()
	if d.next < 0 {
		r.done = true
	} else {
		r.pos, r.line = d.next, d.nextLine
	}
	return root, empty, ok && !d.bad, false
}

func blankOrComment(l string) bool {
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			continue
		case '#':
			return true
		}
		return false
	}
	return true
}

// docReader reads one document, line by line. The document ends at the
// first line that is exactly "---" (a document marker) or at the end of the
// file: every routine stops at limit, which setLine moves to the marker
// when it gets there.
type docReader struct {
	s     string
	pos   int // start of the current line
	eol   int // its end (its line break, or the end of s)
	line  int // its number in the file
	limit int // where the document ends, as far as known
	// next is where the next document starts (-1: none), nextLine its
	// line.
	next, nextLine int
	// bad is set when a line is nothing the fast reader reads: tabs,
	// carriage returns, control or non-ASCII characters, directives, and
	// document markers other than a bare "---".
	bad   bool
	depth int // collections open
	t     *docTree
}

// maxDepth bounds nesting well below yaml.v3's limit (10,000), which the
// fast reader leaves to yaml.v3 to report.
const maxDepth = 1000

// setLine makes the line at pos current and checks it.
func (d *docReader) setLine(pos, line int) {
	d.pos, d.line = pos, line
	if pos >= d.limit {
		d.pos, d.eol = d.limit, d.limit
		return
	}
	rest := d.s[pos:d.limit]
	eol := strings.IndexByte(rest, '\n')
	if eol < 0 {
		eol = len(rest)
	}
	l := rest[:eol]
	d.eol = pos + eol
	if !printableASCII(l) {
		d.stop()
		return
	}
	if len(l) >= 3 && (l[0] == '-' || l[0] == '.') && l[1] == l[0] && l[2] == l[0] {
		switch {
		case len(l) == 3 && l[0] == '-':
			d.next, d.nextLine = min(d.eol+1, len(d.s)), line+1
			d.eol, d.limit = pos, pos
		case len(l) == 3 || l[3] == ' ':
			d.stop() // "...", or "---" with content
		}
		return
	}
	if len(l) > 0 && l[0] == '%' {
		d.stop() // a directive
	}
}

// printableASCII reports whether l holds only printable ASCII characters
// (0x20 to 0x7e), eight at a time.
func printableASCII(l string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(l); i += 8 {
		x := uint64(l[i]) | uint64(l[i+1])<<8 | uint64(l[i+2])<<16 | uint64(l[i+3])<<24 |
			uint64(l[i+4])<<32 | uint64(l[i+5])<<40 | uint64(l[i+6])<<48 | uint64(l[i+7])<<56
		// Some byte is below 0x20, or some byte is 0x7f or above.
		if (x-0x20*ones)&^x&highs != 0 || ((x+ones)|x)&highs != 0 {
			return false
		}
	}
	for ; i < len(l); i++ {
		if c := l[i]; c < ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// commentAt returns where a comment (" #") starts in s, or -1.
func commentAt(s string) int {
	for from := 0; ; {
		j := strings.IndexByte(s[from:], '#')
		if j < 0 {
			return -1
		}
		if j += from; j > 0 && s[j-1] == ' ' {
			return j - 1
		}
		from = j + 1
	}
}

// stop gives up on the document at the current line.
func (d *docReader) stop() {
	d.bad = true
	d.limit, d.eol = d.pos, d.pos
}

// current returns the current line, without its line break.
func (d *docReader) current() string { return d.s[d.pos:d.eol] }

// advance moves to the next line.
func (d *docReader) advance() {
	if d.pos < d.limit {
		d.setLine(d.eol+1, d.line+1)
	}
}

// peek skips blank and comment lines and returns the indentation of the
// next line with content; ok is false at the end of the document.
func (d *docReader) peek() (indent int, ok bool) {
	for d.pos < d.limit {
		l := d.current()
		i := 0
		for i < len(l) && l[i] == ' ' {
			i++
		}
		if i < len(l) && l[i] != '#' {
			return i, true
		}
		d.advance()
	}
	return 0, false
}

// plainStart reports whether a plain scalar may start s. '-' may when a
// non-space follows; '?' and ':' may too in YAML, but the fast reader
// leaves them to yaml.v3.
func plainStart(s string) bool {
	switch s[0] {
	case '-':
		return len(s) > 1 && s[1] != ' '
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		return false
	}
	return true
}

// read reads the document: a mapping, or nothing.
func (d *docReader) read() (root int32, empty, ok bool) {
	indent, more := d.peek()
	if !more {
		return -1, true, true
	}
	if d.current()[indent] == '{' {
		// A JSON document.
		f := flowCursor{d: d, l: d.current(), c: indent, multiline: true}
		root, ok = f.mapping(-1)
		if !ok || !trailer(f.l[f.c:]) {
			return -1, false, false
		}
		d.advance()
	} else {
		key, rest, isKey := splitKey(d.current()[indent:])
		if !isKey {
			return -1, false, false // the root is no mapping
		}
		if root, ok = d.mapping(-1, indent, key, rest); !ok {
			return -1, false, false
		}
	}
	if _, more := d.peek(); more {
		return -1, false, false // content after the root mapping
	}
	return root, false, true
}

// splitKey splits a line's text at its mapping key: `key: value`. isKey is
// false when the text is no `plain key:` line.
func splitKey(text string) (key, rest string, isKey bool) {
	if text == "" || !plainStart(text) {
		return "", "", false
	}
	for from := 0; ; {
		i := strings.IndexByte(text[from:], ':')
		if i < 0 {
			return "", "", false
		}
		i += from
		if i+1 < len(text) && text[i+1] != ' ' {
			from = i + 1
			continue
		}
		// yaml.v3 finds no key longer than 1024 characters, and a comment
		// before the colon leaves no key.
		if i > 1000 || commentAt(text[:i]) >= 0 {
			return "", "", false
		}
		key = strings.TrimRight(text[:i], " ")
		return key, strings.TrimLeft(text[i+1:], " "), true
	}
}

// mapping reads a block mapping at column indent whose first key, on the
// current line (further in after a sequence's "- "), the caller has split
// already: key0 and the text after its colon, rest0.
func (d *docReader) mapping(parent int32, indent int, key0, rest0 string) (int32, bool) {
	if d.depth++; d.depth > maxDepth {
		return -1, false
	}
	m := d.t.add(parent, treeNode{kind: treeMap, line: int32(d.line)})
	for first := true; ; first = false {
		key, rest := key0, rest0
		if !first {
			i, more := d.peek()
			if !more || i < indent {
				break
			}
			if i > indent {
				return -1, false
			}
			var isKey bool
			if key, rest, isKey = splitKey(d.current()[indent:]); !isKey {
				return -1, false
			}
		}
		if k, _, ok := resolvePlain(key); !ok || k != scalarString {
			return -1, false
		}
		var v int32
		var ok bool
		if rest == "" || rest[0] == '#' {
			line := d.line
			d.advance()
			v, ok = d.nested(m, indent, line)
		} else {
			v, ok = d.inline(m, rest, indent)
		}
		if !ok {
			return -1, false
		}
		d.t.node(v).key = key
	}
	d.depth--
	if !d.t.checkKeys(m) {
		return -1, false
	}
	return m, true
}

// nested reads the value of a key whose line ends after the colon: a block
// mapping or sequence further in, a sequence at the key's own column, or
// nothing (null).
func (d *docReader) nested(parent int32, indent, keyLine int) (int32, bool) {
	if i, more := d.peek(); more && i >= indent {
		text := d.current()[i:]
		if text == "-" || strings.HasPrefix(text, "- ") {
			return d.sequence(parent, i)
		}
		if i > indent {
			if key, rest, isKey := splitKey(text); isKey {
				return d.mapping(parent, i, key, rest)
			}
			return -1, false // a scalar on the next lines
		}
	}
	return d.t.add(parent, treeNode{kind: treeScalar, scalar: scalarNull, value: "null", line: int32(keyLine)}), true
}

// sequence reads a block sequence whose "- " stand at column indent.
func (d *docReader) sequence(parent int32, indent int) (int32, bool) {
	if d.depth++; d.depth > maxDepth {
		return -1, false
	}
	s := d.t.add(parent, treeNode{kind: treeSeq, line: int32(d.line)})
	for {
		i, more := d.peek()
		if !more || i < indent {
			break
		}
		if i > indent {
			return -1, false
		}
		l := d.current()
		if !strings.HasPrefix(l[indent:], "- ") {
			if l[indent:] == "-" {
				return -1, false // an item on the next lines
			}
			break // the mapping around an indentless sequence goes on
		}
		col := indent + 2
		for col < len(l) && l[col] == ' ' {
			col++
		}
		text := l[col:]
		if text == "" || text[0] == '#' || text == "-" || strings.HasPrefix(text, "- ") {
			return -1, false
		}
		var ok bool
		if key, rest, isKey := splitKey(text); isKey {
			_, ok = d.mapping(s, col, key, rest)
		} else {
			_, ok = d.inline(s, text, indent)
		}
		if !ok {
			return -1, false
		}
	}
	d.depth--
	return s, true
}

// inline reads a value that starts on the current line (text) and moves
// past it. indent is the column of the collection around it: continuation
// lines of a plain scalar and the lines of a literal scalar stand further
// in.
func (d *docReader) inline(parent int32, text string, indent int) (int32, bool) {
	line := int32(d.line)
	switch text[0] {
	case '"', '\'':
		v, n, ok := quoted(text)
		if !ok || !trailer(text[n:]) {
			return -1, false
		}
		d.advance()
		return d.t.add(parent, treeNode{kind: treeScalar, scalar: scalarString, value: v, line: line}), true
	case '{', '[':
		// A flow collection in JSON syntax, on this line.
		l := d.current()
		f := flowCursor{d: d, l: l, c: len(l) - len(text)}
		v, ok := f.value(parent)
		if !ok || !trailer(l[f.c:]) {
			return -1, false
		}
		d.advance()
		return v, true
	case '|':
		return d.literal(parent, text, indent)
	}
	if !plainStart(text) {
		return -1, false
	}
	value, ok := plainLine(text)
	if !ok {
		return -1, false
	}
	d.advance()
	// Lines further in than the collection continue the scalar, folded
	// into one line. A blank line would fold into a line break, and a
	// comment would end the scalar: those are left to yaml.v3.
	var folded []string
	for d.pos < d.limit {
		l := d.current()
		i := 0
		for i < len(l) && l[i] == ' ' {
			i++
		}
		if i <= indent || i == len(l) {
			break
		}
		cont := l[i:]
		if cont[0] == '#' || cont == "-" || strings.HasPrefix(cont, "- ") {
			return -1, false
		}
		part, ok := plainLine(cont)
		if !ok || len(part) != len(strings.TrimRight(cont, " ")) {
			return -1, false
		}
		if folded == nil {
			folded = append(folded, value)
		}
		folded = append(folded, part)
		d.advance()
	}
	if folded != nil {
		value = strings.Join(folded, " ")
	}
	kind, resolved, ok := resolvePlain(value)
	if !ok {
		return -1, false
	}
	return d.t.add(parent, treeNode{kind: treeScalar, scalar: kind, value: resolved, line: line}), true
}

// plainLine returns a plain scalar's text on one line: up to a comment,
// without trailing spaces. ok is false where YAML would see a mapping value
// (": "), which is not allowed there.
func plainLine(text string) (string, bool) {
	if i := commentAt(text); i >= 0 {
		text = text[:i]
	}
	if i := strings.IndexByte(text, ':'); i >= 0 {
		if strings.Contains(text[i:], ": ") || strings.HasSuffix(text, ":") {
			return "", false
		}
	}
	return strings.TrimRight(text, " "), true
}

// trailer reports whether what follows a value on its line is nothing, or
// spaces and a comment.
func trailer(rest string) bool {
	t := strings.TrimLeft(rest, " ")
	return t == "" || t[0] == '#' && len(t) < len(rest)
}

// quoted reads a single- or double-quoted scalar that ends on its line. It
// returns the value and the length of its text, quotes included.
func quoted(text string) (value string, n int, ok bool) {
	q := text[0]
	var b []byte // only when the value differs from its text
	start := 1
	for i := 1; i < len(text); i++ {
		c := text[i]
		switch {
		case q == '\'' && c == '\'' && i+1 < len(text) && text[i+1] == '\'':
			b = append(b, text[start:i+1]...)
			i++
			start = i + 1
			continue
		case q == '"' && c == '\\':
			if i+1 >= len(text) {
				return "", 0, false // an escaped line break: left to yaml.v3
			}
			r, width, ok := unescape(text[i+1:])
			if !ok {
				return "", 0, false
			}
			b = append(b, text[start:i]...)
			b = append(b, r)
			i += width
			start = i + 1
			continue
		case c != q:
			continue
		}
		if b == nil {
			return text[1:i], i + 1, true
		}
		b = append(b, text[start:i]...)
		return string(b), i + 1, true
	}
	return "", 0, false // it goes on on the next line
}

// unescape reads one escape of a double-quoted scalar (after the
// backslash): the byte it stands for and how many characters it took. Only
// escapes that give ASCII are read; yaml.v3 gets the others, and those it
// does not know (JSON's \/ among them).
func unescape(s string) (byte, int, bool) {
	switch s[0] {
	case '0':
		return 0, 1, true
	case 'a':
		return '\a', 1, true
	case 'b':
		return '\b', 1, true
	case 't':
		return '\t', 1, true
	case 'n':
		return '\n', 1, true
	case 'v':
		return '\v', 1, true
	case 'f':
		return '\f', 1, true
	case 'r':
		return '\r', 1, true
	case 'e':
		return 0x1b, 1, true
	case ' ', '"', '\\':
		return s[0], 1, true
	case 'x', 'u', 'U':
		width := 2
		switch s[0] {
		case 'u':
			width = 4
		case 'U':
			width = 8
		}
		if len(s) < 1+width {
			return 0, 0, false
		}
		v := 0
		for i := 1; i <= width; i++ {
			c := s[i]
			var digit int
			switch {
			case c >= '0' && c <= '9':
				digit = int(c - '0')
			case c >= 'a' && c <= 'f':
				digit = int(c-'a') + 10
			case c >= 'A' && c <= 'F':
				digit = int(c-'A') + 10
			default:
				return 0, 0, false
			}
			v = v<<4 | digit
		}
		if v >= 0x80 {
			return 0, 0, false
		}
		return byte(v), 1 + width, true
	}
	return 0, 0, false
}

// literal reads a literal block scalar (`|`, `|-` or `|+`) whose header is
// text, on the current line. Its lines stand further in than indent.
func (d *docReader) literal(parent int32, text string, indent int) (int32, bool) {
	line := int32(d.line)
	chomp := byte(0)
	if len(text) > 1 {
		chomp = text[1]
		if (chomp != '-' && chomp != '+') || len(text) > 2 {
			return -1, false // indentation indicators, comments on the header line
		}
	}
	d.advance()
	// The content's indentation is its first line's. Lines of spaces only
	// are left to yaml.v3: they may set the indentation, or be content.
	contentIndent := -1
	var b strings.Builder
	breaks := 0 // line breaks not written yet
	for d.pos < d.limit {
		l := d.current()
		i := 0
		for i < len(l) && l[i] == ' ' {
			i++
		}
		if i == len(l) {
			if i > 0 {
				return -1, false
			}
			breaks++
			d.advance()
			continue
		}
		if contentIndent < 0 {
			if i <= indent {
				return -1, false // an empty literal
			}
			contentIndent = i
		}
		if i < contentIndent {
			break
		}
		if d.eol >= len(d.s) {
			return -1, false // no line break after the content
		}
		if b.Len() > 0 {
			breaks++ // the one after the previous content line
		}
		for ; breaks > 0; breaks-- {
			b.WriteByte('\n')
		}
		b.WriteString(l[contentIndent:])
		d.advance()
	}
	if contentIndent < 0 {
		return -1, false
	}
	switch chomp {
	case 0:
		b.WriteByte('\n')
	case '+':
		b.WriteByte('\n')
		for ; breaks > 0; breaks-- {
			b.WriteByte('\n')
		}
	}
	return d.t.add(parent, treeNode{kind: treeScalar, scalar: scalarString, value: b.String(), line: line}), true
}

// flowCursor reads flow collections in JSON syntax: double- or
// single-quoted keys and strings, JSON numbers, true, false and null, which
// yaml.v3 reads as JSON means them (numbers as it resolves them). YAML's
// own flow syntax (plain strings, implicit nulls, trailing commas, single
// pairs in sequences) is left to yaml.v3.
type flowCursor struct {
	d *docReader
	l string // the current line
	c int    // the column in it
	// multiline lets the collection go on over lines: only a document's
	// root may (further in, YAML has rules about indentation).
	multiline bool
}

// space skips spaces (and line breaks, when multiline) and reports whether
// a character follows.
func (f *flowCursor) space() bool {
	for {
		for f.c < len(f.l) && f.l[f.c] == ' ' {
			f.c++
		}
		if f.c < len(f.l) || !f.multiline {
			return f.c < len(f.l)
		}
		f.d.advance()
		if f.d.pos >= f.d.limit {
			return false
		}
		f.l, f.c = f.d.current(), 0
	}
}

func (f *flowCursor) value(parent int32) (int32, bool) {
	if !f.space() {
		return -1, false
	}
	line := int32(f.d.line)
	switch f.l[f.c] {
	case '{':
		return f.mapping(parent)
	case '[':
		return f.sequence(parent)
	case '"', '\'':
		v, n, ok := quoted(f.l[f.c:])
		if !ok {
			return -1, false
		}
		f.c += n
		return f.d.t.add(parent, treeNode{kind: treeScalar, scalar: scalarString, value: v, line: line}), true
	}
	end := f.c
	for end < len(f.l) && strings.IndexByte(",]} ", f.l[end]) < 0 {
		end++
	}
	token := f.l[f.c:end]
	if !jsonLiteral(token) {
		return -1, false
	}
	kind, text, ok := resolvePlain(token)
	if !ok {
		return -1, false
	}
	f.c = end
	return f.d.t.add(parent, treeNode{kind: treeScalar, scalar: kind, value: text, line: line}), true
}

// mapping reads a flow mapping from its '{'.
func (f *flowCursor) mapping(parent int32) (int32, bool) {
	d := f.d
	if d.depth++; d.depth > maxDepth {
		return -1, false
	}
	m := d.t.add(parent, treeNode{kind: treeMap, line: int32(d.line)})
	f.c++
	if !f.space() {
		return -1, false
	}
	if f.l[f.c] != '}' {
		for {
			if !f.space() || f.l[f.c] != '"' && f.l[f.c] != '\'' {
				return -1, false
			}
			start := f.c
			key, n, ok := quoted(f.l[f.c:])
			if !ok {
				return -1, false
			}
			// yaml.v3 wants the colon on the key's line, and at most 1024
			// characters after the key's start.
			for f.c += n; f.c < len(f.l) && f.l[f.c] == ' '; f.c++ {
			}
			if f.c >= len(f.l) || f.l[f.c] != ':' || f.c-start > 1000 {
				return -1, false
			}
			f.c++
			v, ok := f.value(m)
			if !ok {
				return -1, false
			}
			d.t.node(v).key = key
			if !f.space() {
				return -1, false
			}
			if f.l[f.c] == '}' {
				break
			}
			if f.l[f.c] != ',' {
				return -1, false
			}
			f.c++
		}
	}
	f.c++
	d.depth--
	if !d.t.checkKeys(m) {
		return -1, false
	}
	return m, true
}

// sequence reads a flow sequence from its '['.
func (f *flowCursor) sequence(parent int32) (int32, bool) {
	d := f.d
	if d.depth++; d.depth > maxDepth {
		return -1, false
	}
	s := d.t.add(parent, treeNode{kind: treeSeq, line: int32(d.line)})
	f.c++
	if !f.space() {
		return -1, false
	}
	if f.l[f.c] != ']' {
		for {
			if _, ok := f.value(s); !ok || !f.space() {
				return -1, false
			}
			if f.l[f.c] == ']' {
				break
			}
			if f.l[f.c] != ',' {
				return -1, false
			}
			f.c++
		}
	}
	f.c++
	d.depth--
	return s, true
}

// jsonLiteral reports whether s is a JSON number, true, false or null.
func jsonLiteral(s string) bool {
	switch s {
	case "true", "false", "null":
		return true
	case "":
		return false
	}
	i := 0
	if s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
