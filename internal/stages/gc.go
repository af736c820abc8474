package stages

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// GCHeadroom is how much garbage zap lets its heap hold above what is live
// before it collects: GCPercent's 4 times the live heap while that is
// small (a config of some hundred resources), no more than this once it
// is large, and never less than the Go default of once the live heap.
// Collecting at 4 times a large live heap is what took zap to 777 MB
// resident for a 20,000-file wetrun whose live heap never passed 200 MB.
const GCHeadroom = 32 << 20

// StageLivePerByte is about how many bytes of live heap zap-detect and
// zap-plan hold per byte of the document they read (measured at 2,000
// files: 6 and 10), from which zap picks their GOGC.
const StageLivePerByte = 8

// GCPercentFor is the GOGC for a live heap of live bytes: GCPercent while
// the garbage it lets grow stays within GCHeadroom, then less, down to
// 100.
func GCPercentFor(live uint64) int {
	if live == 0 {
		return GCPercent
	}
	p := GCHeadroom * 100 / live
	switch {
	case p > GCPercent:
		return GCPercent
	case p < 100:
		return 100
	}
	return int(p)
}

// TuneGC sets zap's own GOGC to GCPercentFor its live heap after every
// collection, from GCPercent at the start. Call it only when the operator
// didn't set GOGC; calls after the first do nothing.
func TuneGC() {
	tuneOnce.Do(func() {
		t := &gcTuner{percent: GCPercent, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
		debug.SetGCPercent(GCPercent)
		t.arm()
	})
}

var tuneOnce sync.Once

// gcTuner re-reads the live heap when a collection frees its sentinel.
type gcTuner struct {
	percent int
	sample  []metrics.Sample
}

// gcSentinel is an object nothing holds, so each collection frees it and
// runs its finalizer; it holds a pointer so it is never a tiny allocation
// (whose finalizer may never run).
type gcSentinel struct{ t *gcTuner }

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{t: t}, func(s *gcSentinel) { s.t.adjust() })
}

// adjust runs on the finalizer goroutine after a collection.
func (t *gcTuner) adjust() {
	metrics.Read(t.sample)
	if v := t.sample[0].Value; v.Kind() == metrics.KindUint64 {
		if p := GCPercentFor(v.Uint64()); p != t.percent {
			t.percent = p
			debug.SetGCPercent(p)
		}
	}
	t.arm()
}
