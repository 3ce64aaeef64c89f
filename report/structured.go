package report

import (
	"bufio"
	"encoding/json"
	"io"

	"sigs.k8s.io/yaml"
)

// WriteJSON writes v as indented JSON, one value followed by a newline: the
// -o json of the commands whose output type has no renderer of its own. It
// writes what json.MarshalIndent gives, but indents the compact encoding as
// it streams to w instead of building the indented document, and its
// copies, in memory: a 50,000-pod replay's is 100 MB, and holding it cost
// several hundred MB of peak memory at the end of the run.
func WriteJSON(w io.Writer, v any) error {
	iw := &indentWriter{w: bufio.NewWriterSize(w, 64<<10)}
	if err := json.NewEncoder(iw).Encode(v); err != nil {
		return err
	}
	return iw.w.Flush()
}

// indentWriter indents compact JSON, as json.Indent does with no prefix
// and two spaces, as it is written to it: a newline and the depth's indent
// after an opening bracket and a comma, a space after a colon, and empty
// objects and arrays kept as {} and []. Strings are copied as they are.
// Compact JSON has no whitespace outside strings; a newline there (the
// encoder's after the value) is copied. Errors of w are bufio's: Flush
// returns the first.
type indentWriter struct {
	w *bufio.Writer
	// inString and escaped track where the last byte was.
	inString, escaped bool
	// open is set after an opening bracket whose newline waits for the
	// next byte: none if it is the closing bracket.
	open  bool
	depth int
}

func (iw *indentWriter) Write(p []byte) (int, error) {
	w := iw.w
	for i := 0; i < len(p); i++ {
		c := p[i]
		if iw.inString {
			// Copy up to the next quote or backslash at once.
			j := i
			for j < len(p) && !iw.escaped && p[j] != '"' && p[j] != '\\' {
				j++
			}
			if j > i {
				w.Write(p[i:j])
				i = j - 1
				continue
			}
			w.WriteByte(c)
			switch {
			case iw.escaped:
				iw.escaped = false
			case c == '\\':
				iw.escaped = true
			case c == '"':
				iw.inString = false
			}
			continue
		}
		if iw.open && c != '}' && c != ']' {
			iw.open = false
			iw.depth++
			iw.newline()
		}
		switch c {
		case '"':
			iw.inString = true
			w.WriteByte(c)
		case '{', '[':
			iw.open = true
			w.WriteByte(c)
		case ',':
			w.WriteByte(c)
			iw.newline()
		case ':':
			w.WriteString(": ")
		case '}', ']':
			if iw.open {
				iw.open = false
			} else {
				iw.depth--
				iw.newline()
			}
			w.WriteByte(c)
		default:
			w.WriteByte(c)
		}
	}
	return len(p), nil
}

func (iw *indentWriter) newline() {
	iw.w.WriteByte('\n')
	for range iw.depth {
		iw.w.WriteString("  ")
	}
}

// WriteYAML writes v as YAML (its JSON fields, keys sorted): the -o yaml of
// the commands whose output type has no renderer of its own.
func WriteYAML(w io.Writer, v any) error {
	data, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
