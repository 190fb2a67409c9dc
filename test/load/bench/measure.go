package main

import (
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/feria/feria/test/load/loadrun"
)

// errExhausted ends a closed-loop run early (loadrun.ErrExhausted).
var errExhausted = loadrun.ErrExhausted

// sample is what one run of an op measured.
type sample struct {
	ops     int
	elapsed time.Duration
	lats    []time.Duration
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
	return sample{ops: ops, elapsed: elapsed, lats: lats}, nil
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
	return sample{ops: len(lats), elapsed: time.Since(t0), lats: lats}, dropped, nil
}

// merged is the runs of one measure across rounds.
type merged struct {
	rates []float64
	lats  []time.Duration
}

func (m *merged) add(s sample) {
	m.rates = append(m.rates, s.perSec())
	m.lats = append(m.lats, s.lats...)
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

func (m *merged) quantiles() (p50, p99 time.Duration) {
	sort.Slice(m.lats, func(i, j int) bool { return m.lats[i] < m.lats[j] })
	return pct(m.lats, 0.50), pct(m.lats, 0.99)
}
