package suggest

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"name", "arrival", "workload", "duration", "devices", "device_class", "max", "min"}
	tests := []struct {
		name, in, want string
	}{
		{"one letter twice", "durration", "duration"},
		{"a swap", "wrokload", "workload"},
		{"a swap in a short name", "nmae", "name"},
		{"singular", "device", "devices"},
		{"too far", "gpus", ""},
		{"a short name is not corrected into another", "mx", "max"},
		{"one letter", "x", ""},
		{"exact", "max", "max"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Closest(tc.in, known); got != tc.want {
				t.Errorf("Closest(%q): want %q, got %q", tc.in, tc.want, got)
			}
		})
	}
}
