package stages

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, GCPercent},
		{1 << 20, GCPercent},
		{GCHeadroom / 4, GCPercent},
		{GCHeadroom / 2, 200},
		{GCHeadroom, 100},
		{10 * GCHeadroom, 100},
	} {
		if got := GCPercentFor(c.live); got != c.want {
			t.Errorf("GCPercentFor(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// TestTuneGC holds a live heap of twice GCHeadroom and checks that the
// collections after TuneGC bring GOGC down to 100, then back to GCPercent
// once it is dropped.
func TestTuneGC(t *testing.T) {
	TuneGC()
	gogc := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	wait := func(want uint64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for gogc() != want {
			if time.Now().After(deadline) {
				t.Fatalf("GOGC is %d, want %d", gogc(), want)
			}
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
	}
	wait(GCPercent)
	live := make([][]byte, 2*GCHeadroom>>20)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	wait(100)
	runtime.KeepAlive(live)
	live = nil
	wait(GCPercent)
}
