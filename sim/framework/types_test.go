package framework

import "testing"

// counter is a state value that Clone must copy.
type counter struct{ n int }

func (c *counter) CloneState() any { return &counter{n: c.n} }

func TestCycleState(t *testing.T) {
	s := NewCycleState()
	if got := s.Read("a"); got != nil {
		t.Errorf("Read(a) on an empty state = %v, want nil", got)
	}
	s.Write("a", 1)
	s.Write("b", &counter{n: 1})
	s.Write("a", 2) // replaces
	if got := s.Read("a"); got != 2 {
		t.Errorf("Read(a) after writing 1 then 2 = %v, want 2", got)
	}
	if got, want := len(s.keys), 2; got != want {
		t.Errorf("%d keys after writing a twice and b once, want %d", got, want)
	}
	c := s.Clone()
	c.Write("a", 3)
	c.Write("c", 4)
	c.Read("b").(*counter).n = 5
	if got := s.Read("a"); got != 2 {
		t.Errorf("the original's a after the clone's was changed = %v, want 2", got)
	}
	if got := s.Read("c"); got != nil {
		t.Errorf("the original's c after the clone wrote it = %v, want nil", got)
	}
	if got := s.Read("b").(*counter).n; got != 1 {
		t.Errorf("the original's b after the clone's copy changed = %d, want 1", got)
	}
	if got := c.Read("a"); got != 3 {
		t.Errorf("the clone's a = %v, want 3", got)
	}
}
