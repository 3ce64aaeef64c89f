package report

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is a header and rows of cells, rendered in the kubectl style:
// no borders, upper-case header, columns separated by spaces.
type Table struct {
	Header []string
	Rows   [][]string
	// ExactHeader prints the header cells upper-cased but otherwise as
	// they are: names a user chose (a sweep's axes and metrics) keep their
	// dashes, underscores and dots.
	ExactHeader bool
}

// Append adds one row.
func (t *Table) Append(cells ...string) { t.Rows = append(t.Rows, cells) }

// Sized is implemented by writers that know how wide their display is (a
// terminal). Renderers stay pure functions: the width comes with the writer,
// not from the environment.
type Sized interface {
	Width() int
}

// SizedWriter is an io.Writer with a display width in columns.
type SizedWriter struct {
	io.Writer
	Columns int
}

// Width implements Sized.
func (s SizedWriter) Width() int { return s.Columns }

// columnGap is the space between columns.
const columnGap = 3

// Write renders the table to w. A table without rows writes nothing. When w
// is Sized and the table is wider, the last column (where drasim puts the
// long texts: reasons, messages) wraps at word boundaries onto continuation
// lines, so that the table fits.
func (t *Table) Write(w io.Writer) error {
	if len(t.Rows) == 0 {
		return nil
	}
	rows := t.Rows
	if sized, ok := w.(Sized); ok && sized.Width() > 0 {
		rows = t.fit(sized.Width())
	}
	autoFormat := tw.On
	if t.ExactHeader {
		autoFormat = tw.Off
	}
	var buf bytes.Buffer
	table := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithConfig(tablewriter.Config{
			Header: tw.CellConfig{
				Alignment:  tw.CellAlignment{Global: tw.AlignLeft},
				Formatting: tw.CellFormatting{AutoFormat: autoFormat, AutoWrap: tw.WrapNone},
				Padding:    tw.CellPadding{Global: tw.Padding{Left: "", Right: "   "}},
			},
			Row: tw.CellConfig{
				Alignment:  tw.CellAlignment{Global: tw.AlignLeft},
				Formatting: tw.CellFormatting{AutoWrap: tw.WrapNone},
				Padding:    tw.CellPadding{Global: tw.Padding{Left: "", Right: "   "}},
			},
		}),
	)
	header := t.Header
	if t.ExactHeader {
		header = make([]string, len(t.Header))
		for i, h := range t.Header {
			header[i] = strings.ToUpper(h)
		}
	}
	table.Header(header)
	if err := table.Bulk(rows); err != nil {
		return err
	}
	if err := table.Render(); err != nil {
		return err
	}
	// Padding leaves spaces after the last column; drop them so output and
	// golden files have no trailing white space.
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		trimmed := strings.TrimRight(line, " \n")
		if trimmed == "" && !strings.HasSuffix(line, "\n") {
			continue
		}
		if _, err := io.WriteString(w, trimmed+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// fit returns the rows with the last column wrapped so that every line fits
// in width columns; a last column that would get fewer than 20 columns is
// left as it is (a terminal that narrow wraps lines itself).
func (t *Table) fit(width int) [][]string {
	cols := len(t.Header)
	if cols == 0 {
		return t.Rows
	}
	widths := make([]int, cols)
	for i, h := range t.Header {
		widths[i] = len(h)
	}
	for _, r := range t.Rows {
		for i := 0; i < cols && i < len(r); i++ {
			widths[i] = max(widths[i], len(r[i]))
		}
	}
	offset := 0
	for i := 0; i < cols-1; i++ {
		offset += widths[i] + columnGap
	}
	avail := width - offset
	if avail < 20 || widths[cols-1] <= avail {
		return t.Rows
	}
	var out [][]string
	for _, r := range t.Rows {
		if len(r) < cols || len(r[cols-1]) <= avail {
			out = append(out, r)
			continue
		}
		for i, line := range wrapWords(r[cols-1], avail) {
			row := make([]string, cols)
			if i == 0 {
				copy(row, r[:cols-1])
			}
			row[cols-1] = line
			out = append(out, row)
		}
	}
	return out
}

// wrapWords splits s into lines of at most width characters at spaces; a
// word longer than width is cut.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for len(word) > width {
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			lines = append(lines, word[:width])
			word = word[width:]
		}
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
