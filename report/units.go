package report

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
)

// A table column of CPU or memory quantities shows every row in one unit,
// so that rows compare at a glance (Kubernetes' canonical form mixes them:
// 144 next to 382900m, 512Mi next to 16Gi). CPU is in cores, as kubectl top
// shows it; memory in the largest binary unit up to Gi (Ki, Mi, Gi) that the
// column's largest value reaches, with the unit on each value (Ti would
// round node sizes away). The JSON and
// YAML outputs keep exact quantities and base values.

// cores renders millicores as cores: 382900 -> "382.9".
func cores(milli int64) string {
	return strconv.FormatFloat(float64(milli)/1000, 'f', -1, 64)
}

// memoryUnit is the unit of a memory column.
type memoryUnit struct {
	suffix string
	bytes  int64
}

// memoryUnitFor picks the unit of a column whose largest value is max bytes.
func memoryUnitFor(largest int64) memoryUnit {
	units := []memoryUnit{{"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}}
	for _, u := range units {
		if largest >= u.bytes {
			return u
		}
	}
	return memoryUnit{"", 1}
}

// format renders bytes in the unit with at most one decimal: "0.5Gi".
func (u memoryUnit) format(bytes int64) string {
	v := float64(bytes) / float64(u.bytes)
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s + u.suffix
}

// quantityColumn renders a column of quantities given as Kubernetes
// strings (cpu: as cores; memory: in one unit). A string that does not
// parse is shown as it is.
func quantityColumn(values []string, cpu bool) []string {
	out := make([]string, len(values))
	parsed := make([]int64, len(values))
	ok := make([]bool, len(values))
	var largest int64
	for i, s := range values {
		q, err := resource.ParseQuantity(s)
		if err != nil {
			out[i] = s
			continue
		}
		if cpu {
			parsed[i] = q.MilliValue()
		} else {
			parsed[i] = q.Value()
		}
		ok[i] = true
		largest = max(largest, parsed[i])
	}
	unit := memoryUnitFor(largest)
	for i := range values {
		switch {
		case !ok[i]:
		case cpu:
			out[i] = cores(parsed[i])
		default:
			out[i] = unit.format(parsed[i])
		}
	}
	return out
}

// columnsOf renders the CPU and memory columns of rows, each in one unit.
func columnsOf[T any](rows []T, get func(T) (cpu, memory string)) (cpu, memory []string) {
	cpu, memory = make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		cpu[i], memory[i] = get(r)
	}
	return quantityColumn(cpu, true), quantityColumn(memory, false)
}
