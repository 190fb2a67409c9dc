package controlredis

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// Callers that arrive while a flush is in flight are sent together in the
// next one, each after it joined, and each returns only once its own batch
// is answered, with that batch's answer.
func TestGroupSendsWaitingCallersInOneFlush(t *testing.T) {
	var mu sync.Mutex
	var flushes [][]int
	release := make(chan struct{})
	first := make(chan struct{})
	g := group[int, int]{flush: func(_ context.Context, items []int) (int, error) {
		mu.Lock()
		flushes = append(flushes, append([]int(nil), items...))
		n := len(flushes)
		mu.Unlock()
		if n == 1 {
			close(first)
			<-release // the first flush is in flight while the others arrive
		}
		if items[0] < 0 {
			return n, errors.New("refused")
		}
		return n, nil
	}}
	ctx := context.Background()
	answers := make([]int, 6)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); answers[0], _ = g.do(ctx, 0) }()
	<-first
	for i := 1; i < 6; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); answers[i], _ = g.do(ctx, i) }()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		g.mu.Lock()
		n := 0
		if g.next != nil {
			n = len(g.next.items)
		}
		g.mu.Unlock()
		if n == 5 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if len(flushes) != 2 || len(flushes[0]) != 1 || len(flushes[1]) != 5 {
		t.Fatalf("flushes %v, want [0] then the five that waited", flushes)
	}
	want := []int{1, 2, 2, 2, 2, 2}
	for i := range answers {
		if answers[i] != want[i] {
			t.Fatalf("answers %v, want %v", answers, want)
		}
	}
	// Alone, a caller is sent at once; a failed flush fails its callers.
	if n, err := g.do(ctx, -1); err == nil || n != 3 {
		t.Fatalf("a failed flush: %d, %v", n, err)
	}
	if n, err := g.do(ctx, 7); err != nil || n != 4 || len(flushes[3]) != 1 {
		t.Fatalf("a caller alone: %d, %v, %v", n, err, flushes)
	}
}
