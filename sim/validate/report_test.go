package validate

import "testing"

func TestNewReportCounts(t *testing.T) {
	rep := NewReport(nil, []Diagnostic{
		{Severity: SeverityWarning}, {Severity: SeverityError}, {Severity: SeverityWarning},
	})
	if rep.Errors != 1 || rep.Warnings != 2 || rep.Valid {
		t.Errorf("one error, two warnings: want errors 1, warnings 2, valid false; got errors %d, warnings %d, valid %v", rep.Errors, rep.Warnings, rep.Valid)
	}
	if empty := NewReport([]string{"a.yaml"}, nil); !empty.Valid || empty.Diagnostics == nil {
		t.Errorf("no diagnostic: want valid and an empty (not null) list, got valid %v, diagnostics %#v", empty.Valid, empty.Diagnostics)
	}
}
