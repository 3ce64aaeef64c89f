package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTableFitsASizedWriter(t *testing.T) {
	tb := Table{Header: []string{"Pod", "Why"}}
	tb.Append("default/train-1", "0/7 nodes are available: 2 Insufficient memory, 5 cannot allocate all claims.")
	tb.Append("default/web-0", "short")
	var plain bytes.Buffer
	if err := tb.Write(&plain); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(plain.String()), "\n"); len(lines) != 3 {
		t.Errorf("without a width: want one line per row (3), got %d:\n%s", len(lines), plain.String())
	}
	var buf bytes.Buffer
	if err := tb.Write(SizedWriter{Writer: &buf, Columns: 60}); err != nil {
		t.Fatal(err)
	}
	want := `POD               WHY
default/train-1   0/7 nodes are available: 2 Insufficient
                  memory, 5 cannot allocate all claims.
default/web-0     short
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("60-column table (-want +got):\n%s", diff)
	}
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		if len(line) > 60 {
			t.Errorf("line of %d columns in a 60-column table: %q", len(line), line)
		}
	}
}

func TestWrapWords(t *testing.T) {
	got := wrapWords("aaaa bb cccccccccc d", 5)
	want := []string{"aaaa", "bb", "ccccc", "ccccc", "d"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wrapWords (-want +got):\n%s", diff)
	}
}
