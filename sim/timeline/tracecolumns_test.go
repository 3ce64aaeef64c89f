package timeline

import (
	"strings"
	"testing"
)

// TestTraceUnknownColumns: a column drasim's trace does not have is an
// error (a misspelt duration would make every pod run for ever), named
// with its line and the column meant; every problem of the file comes at
// once.
func TestTraceUnknownColumns(t *testing.T) {
	for _, tc := range []struct {
		name, csv string
		want      []string // each on its own line of the error, in order
	}{
		{name: "a misspelt column", csv: "arrival,workload,durration\n0,a,1m\n",
			want: []string{`t.csv:1: unknown column "durration" (did you mean duration?)`}},
		{name: "after comments", csv: "# a day of jobs\narrival,workload,gpus\n0,a,1\n",
			want: []string{`t.csv:2: unknown column "gpus"; the columns are arrival, workload, namespace, replicas, cpu, memory, claim_template, devices, device_class, duration, priority, provisioning_request`}},
		{name: "with a missing column", csv: "arival,workload\n0,a\n",
			want: []string{`t.csv: the header lacks column(s) arrival`, `t.csv:1: unknown column "arival" (did you mean arrival?)`}},
		{name: "with bad rows", csv: "arrival,workload,prio\nsoon,a,1\n5m,B,1\n",
			want: []string{`t.csv:1: unknown column "prio"`, `t.csv:2: column arrival: "soon" is neither a duration`, `t.csv:3: column workload: "B" is not a valid name`}},
		{name: "every problem of a row", csv: "arrival,workload,replicas,priority,cpu\nsoon,a,0,high,lots\n",
			want: []string{`t.csv:2: column arrival: "soon"`, `t.csv:2: column replicas: "0"`, `t.csv:2: column priority: "high" is not a whole number`, `t.csv:2: column cpu: "lots" is not a quantity`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Prepare(emptySnapshot(), nil, []TraceFile{{Name: "t.csv", Data: []byte(tc.csv)}})
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("want %d problem(s), got %d:\n%v", len(tc.want), len(lines), err)
			}
			for i, w := range tc.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("problem %d: %q does not say %q", i, lines[i], w)
				}
			}
		})
	}
}

// TestTraceKnownColumns: pandas' unnamed index column and the documented
// columns in any case and order are accepted.
func TestTraceKnownColumns(t *testing.T) {
	csv := ",Arrival,WORKLOAD,namespace,replicas,cpu,memory,duration,priority\n0,0,a,ml,2,1,1Gi,5m,3\n"
	a, err := Prepare(emptySnapshot(), nil, []TraceFile{{Name: "t.csv", Data: []byte(csv)}})
	if err != nil {
		t.Fatalf("want no error, got %v", err)
	}
	if n := len(a.Arrivals); n != 2 {
		t.Errorf("want 2 arrivals, got %d", n)
	}
}
