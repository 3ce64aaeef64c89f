package app

import (
	"bytes"
	"testing"
	"time"
)

const time2s = 2 * time.Second

func TestProgressBarIsSilentOffTerminals(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressBar(&buf)
	p.start = p.start.Add(-time2s)
	for i := 1; i <= 10; i++ {
		p.Update(i, 10)
	}
	p.Done()
	if buf.Len() != 0 {
		t.Errorf("progress written to a non-terminal: %q", buf.String())
	}
}

func TestProgressBarDrawsAfterASecond(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressBar(&buf)
	p.enabled = true // as on a terminal
	p.Update(1, 10)
	if buf.Len() != 0 {
		t.Fatalf("drawn before a second had passed: %q", buf.String())
	}
	p.start = p.start.Add(-time2s)
	p.Update(10, 10)
	if !bytes.Contains(buf.Bytes(), []byte("10/10 pods")) {
		t.Errorf("want a bar showing 10/10 pods, got %q", buf.String())
	}
}
