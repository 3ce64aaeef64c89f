package snapshot

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestCopyIsIndependent fills every list and map of a snapshot and checks
// that Copy gives each its own backing store: a field added to Snapshot
// without a line in Copy fails here.
func TestCopyIsIndependent(t *testing.T) {
	s := New()
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 4))
		case reflect.Map:
			m := reflect.MakeMap(f.Type())
			m.SetMapIndex(reflect.New(f.Type().Key()).Elem(), reflect.New(f.Type().Elem()).Elem())
			f.Set(m)
		}
	}
	c := s.Copy()
	cv := reflect.ValueOf(c).Elem()
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		f, cf := v.Field(i), cv.Field(i)
		switch f.Kind() {
		case reflect.Slice:
			if f.Pointer() == cf.Pointer() {
				t.Errorf("%s: the copy shares the original's backing array", name)
			}
			if cf.Len() != f.Len() {
				t.Errorf("%s: want %d element(s) in the copy, got %d", name, f.Len(), cf.Len())
			}
		case reflect.Map:
			if f.Pointer() == cf.Pointer() {
				t.Errorf("%s: the copy shares the original's map", name)
			}
		}
	}
	c.Nodes = append(c.Nodes, &v1.Node{})
	if len(s.Nodes) != 1 {
		t.Errorf("appending to the copy's nodes changed the original: %d nodes, want 1", len(s.Nodes))
	}
}
