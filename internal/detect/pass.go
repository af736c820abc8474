package detect

import (
	"context"
	"fmt"
	"sync"

	"github.com/zap-go/zap/pkg/observation"
)

// Host answers batches of queries on a target.
type Host interface {
	// Answer reads every query of one lane and returns one answer per
	// query, in order. An error fails the whole batch: every resource with
	// a read in it holds.
	Answer(ctx context.Context, lane observation.Lane, queries []Query) ([]Answer, error)
}

// lanes is the order batches run in and are recorded in.
var lanes = []observation.Lane{observation.LaneLogin, observation.LaneRoot, observation.LaneElevated}

// slot is where a detector's query sits in its lane's batch.
type slot struct {
	lane  observation.Lane
	index int
}

// verdictReads counts the queries of qs a verdict is made from: all but
// the text reads of a diff (OpText), so a pass records the same batches
// with zap plan --diff as without (the last-run report keeps them).
func verdictReads(qs []Query) int {
	n := 0
	for _, q := range qs {
		if q.Op != OpText {
			n++
		}
	}
	return n
}

// Pass reads every detector's queries, one batch per lane (the lanes run
// concurrently), and returns the batches it ran and each detector's result,
// in the order of ds. A probe declared more than once (the same text, lane
// and limit, such as the one dpkg query every apt package reads) runs once,
// and each detector that declared it reads the one answer.
func Pass(ctx context.Context, host Host, ds []Detector) ([]observation.Batch, []Result) {
	batches := map[observation.Lane][]Query{}
	slots := make([][]slot, len(ds))
	type probeKey struct {
		lane    observation.Lane
		text    string
		timeout int
	}
	probes := map[probeKey]slot{}
	for i, d := range ds {
		for _, q := range d.Queries() {
			if q.Op == OpProbe && q.Command != nil && q.Command.Cwd == "" && len(q.Command.Env) == 0 {
				key := probeKey{q.Lane, q.Command.Text, q.Command.Timeout}
				if s, ok := probes[key]; ok {
					slots[i] = append(slots[i], s)
					continue
				}
				probes[key] = slot{q.Lane, len(batches[q.Lane])}
			}
			slots[i] = append(slots[i], slot{q.Lane, len(batches[q.Lane])})
			batches[q.Lane] = append(batches[q.Lane], q)
		}
	}

	type outcome struct {
		answers []Answer
		reason  string // why the lane failed as a whole
	}
	outcomes := map[observation.Lane]*outcome{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ran []observation.Batch
	for _, lane := range lanes {
		qs := batches[lane]
		if len(qs) == 0 {
			continue
		}
		ran = append(ran, observation.Batch{Lane: lane, Queries: verdictReads(qs)})
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers, err := host.Answer(ctx, lane, qs)
			o := &outcome{answers: answers}
			switch {
			case err != nil:
				o.reason = fmt.Sprintf("the %s reads failed: %v", lane, err)
			case len(answers) != len(qs):
				o.reason = fmt.Sprintf("the %s reads came back with %d answers for %d reads", lane, len(answers), len(qs))
			}
			mu.Lock()
			outcomes[lane] = o
			mu.Unlock()
		}()
	}
	wg.Wait()

	results := make([]Result, len(ds))
	for i, d := range ds {
		answers := make([]Answer, len(slots[i]))
		failed := ""
		for j, s := range slots[i] {
			o := outcomes[s.lane]
			if o.reason != "" {
				failed = o.reason
				break
			}
			answers[j] = o.answers[s.index]
		}
		if failed != "" {
			results[i] = hold(failed)
			continue
		}
		results[i] = d.Verdict(answers)
	}
	if ran == nil {
		ran = []observation.Batch{}
	}
	return ran, results
}
