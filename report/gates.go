package report

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/drasim/drasim/sim/analysis"
)

func verdict(r analysis.GateResult) string {
	if r.Passed {
		return "PASS"
	}
	return "FAIL"
}

func failedGates(results []analysis.GateResult) int {
	n := 0
	for _, r := range results {
		if !r.Passed {
			n++
		}
	}
	return n
}

func gateTable(results []analysis.GateResult) Table {
	t := Table{Header: []string{"Gate", "Result", "Target", "Measured", "Bound"}}
	for _, r := range results {
		t.Append(r.Name, verdict(r), r.Target, r.MeasuredText(), r.BoundText())
	}
	return t
}

func gateSummary(results []analysis.GateResult) string {
	failed := failedGates(results)
	if failed == 0 {
		return fmt.Sprintf("All %d gate(s) passed.", len(results))
	}
	return fmt.Sprintf("%d of %d gate(s) failed.", failed, len(results))
}

// WriteGateTable renders gate verdicts for a terminal.
func WriteGateTable(w io.Writer, results []analysis.GateResult) error {
	t := gateTable(results)
	if err := t.Write(w); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, gateSummary(results))
	return err
}

// WriteGateMarkdown renders gate verdicts as a markdown section.
func WriteGateMarkdown(w io.Writer, results []analysis.GateResult) error {
	if _, err := fmt.Fprintf(w, "## drasim capacity gates\n\n%s\n\n", gateSummary(results)); err != nil {
		return err
	}
	t := gateTable(results)
	for i := range t.Rows {
		t.Rows[i] = mapStrings(t.Rows[i], markdownCell)
		if !results[i].Passed {
			t.Rows[i][1] = "**FAIL**"
		}
	}
	writeMarkdownRows(w, t)
	return nil
}

// junitFailureText is a failed gate's measured value and bound.
func junitFailureText(r analysis.GateResult) string {
	if r.Measured == nil {
		return "nothing measured, bound " + r.BoundText()
	}
	return fmt.Sprintf("measured %s, bound %s", r.MeasuredText(), r.BoundText())
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	TestCases []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes gate verdicts as JUnit XML, one testcase per gate in a
// suite named suite; a failed gate's failure message holds the measured
// value and the bound. Times are 0: the file is the same for the same
// verdicts.
func WriteJUnit(w io.Writer, suite string, results []analysis.GateResult) error {
	s := junitSuite{Name: suite, Tests: len(results), Failures: failedGates(results), Time: "0"}
	for _, r := range results {
		tc := junitCase{Name: r.Name, ClassName: "drasim.gates." + r.Type, Time: "0", SystemOut: r.Message}
		if !r.Passed {
			tc.Failure = &junitFailure{Message: r.Message, Type: r.Type, Text: junitFailureText(r)}
		}
		s.TestCases = append(s.TestCases, tc)
	}
	doc := junitSuites{Name: "drasim", Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
