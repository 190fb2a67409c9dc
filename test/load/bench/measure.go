package main

import (
	"errors"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/feria/feria/test/load/loadrun"
)

// errExhausted ends a closed-loop run early (loadrun.ErrExhausted).
var errExhausted = loadrun.ErrExhausted

// sample is what one run of an op measured: its latencies when the
// client is this process, their quantiles either way.
type sample struct {
	ops      int
	elapsed  time.Duration
	lats     []time.Duration
	p50, p99 time.Duration
}

// quantiles sets p50 and p99 from the latencies.
func (s *sample) quantiles() {
	sort.Slice(s.lats, func(i, j int) bool { return s.lats[i] < s.lats[j] })
	s.p50, s.p99 = pct(s.lats, 0.50), pct(s.lats, 0.99)
}

func (s sample) perSec() float64 {
	if s.elapsed <= 0 {
		return 0
	}
	return float64(s.ops) / s.elapsed.Seconds()
}

// pct is the p-th quantile of sorted latencies.
func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(float64(len(sorted)-1)*p)]
}

// closedLoop runs conc clients calling op back to back for d: the
// saturated rate (loadrun.ClosedLoop).
func closedLoop(conc int, d time.Duration, op func() error) (sample, error) {
	ops, elapsed, lats, err := loadrun.ClosedLoop(conc, d, op)
	if err != nil {
		return sample{}, err
	}
	s := sample{ops: ops, elapsed: elapsed, lats: lats}
	s.quantiles()
	return s, nil
}

// openLoop sends op at a fixed rate for d whatever the answers' pace (an
// open-loop client, as wrk2 or vegeta): each latency is counted from the
// instant the request was due, so that a stall shows in the tail instead
// of slowing the client down. Requests that would exceed maxInFlight are
// counted as late at the end of the run.
func openLoop(rate float64, d time.Duration, op func() error) (sample, int, error) {
	const maxInFlight = 256
	interval := time.Duration(float64(time.Second) / rate)
	if interval <= 0 {
		interval = time.Microsecond
	}
	var mu sync.Mutex
	var lats []time.Duration
	var firstErr error
	sem := make(chan struct{}, maxInFlight)
	var wg sync.WaitGroup
	dropped := 0
	t0 := time.Now()
	end := t0.Add(d)
	for i := 0; ; i++ {
		due := t0.Add(time.Duration(i) * interval)
		if !due.Before(end) {
			break
		}
		if w := time.Until(due); w > 0 {
			time.Sleep(w)
		}
		select {
		case sem <- struct{}{}:
		default:
			dropped++
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := op()
			lat := time.Since(due)
			<-sem
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil && !errors.Is(err, errExhausted) {
					firstErr = err
				}
				return
			}
			lats = append(lats, lat)
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return sample{}, dropped, firstErr
	}
	s := sample{ops: len(lats), elapsed: time.Since(t0), lats: lats}
	s.quantiles()
	return s, dropped, nil
}

// merged is the runs of one measure across rounds.
type merged struct {
	rates    []float64
	p50, p99 []time.Duration
}

func (m *merged) add(s sample) {
	m.rates = append(m.rates, s.perSec())
	m.p50 = append(m.p50, s.p50)
	m.p99 = append(m.p99, s.p99)
}

// rate is the mean of the rounds' rates.
func (m *merged) rate() float64 {
	if len(m.rates) == 0 {
		return 0
	}
	t := 0.0
	for _, r := range m.rates {
		t += r
	}
	return t / float64(len(m.rates))
}

// spread is (max-min)/mean of the rounds' rates: how stable the figure is.
func (m *merged) spread() float64 {
	if len(m.rates) < 2 {
		return 0
	}
	lo, hi := m.rates[0], m.rates[0]
	for _, r := range m.rates {
		lo, hi = min(lo, r), max(hi, r)
	}
	return (hi - lo) / m.rate()
}

// quantiles is the rounds' median p50 and their worst p99 (wrk gives
// each run's quantiles, not its latencies).
func (m *merged) quantiles() (p50, p99 time.Duration) {
	if len(m.p50) == 0 {
		return 0, 0
	}
	s := slices.Sorted(slices.Values(m.p50))
	return s[len(s)/2], slices.Max(m.p99)
}
