package sshhost

import (
	"testing"
	"time"
)

// TestAheadCoversARoundTrip holds the writer's reach to one round trip
// (the driver's start to its first end lines) over the shortest step the
// target ran without waiting for it, plus the step running: 2 until such a
// step has ended, 16 at most.
func TestAheadCoversARoundTrip(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	cases := []struct {
		name  string
		wrote []int // when the driver's start, then each step, was written (ms)
		ends  []int // when the 0th section, then each step, ended (ms)
		want  int
	}{
		{"nothing ended", []int{0}, nil, 2},
		{"only the start ended", []int{0, 1}, []int{100}, 2},
		// Both steps were on the target before the section before each
		// ended: their gaps, 30 and 20 ms, are their own times; the
		// shortest goes five times into the round trip of 100.
		{"a round trip of five steps", []int{0, 1, 2}, []int{100, 130, 150}, 6},
		// Each written only after the section before it ended: its gap
		// holds a round trip, and isn't a step's time.
		{"steps written late", []int{0, 105, 140}, []int{100, 130, 150}, 2},
		{"a step as long as the round trip", []int{0, 1, 2}, []int{100, 200, 300}, 2},
		{"capped", []int{0, 1, 2}, []int{1000, 1001, 1002}, maxAhead},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &driverRun{}
			for _, ms := range c.wrote {
				b.wrote = append(b.wrote, written{at: at(ms)})
			}
			for _, ms := range c.ends {
				b.ends = append(b.ends, at(ms))
			}
			if got := b.ahead(); got != c.want {
				t.Fatalf("ahead() = %d, want %d", got, c.want)
			}
		})
	}
}
