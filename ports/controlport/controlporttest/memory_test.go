package controlporttest

import (
	"testing"
	"time"

	"github.com/feria/feria/ports/controlport"
)

func TestMemoryRules(t *testing.T) {
	TestRules(t, func(*testing.T) controlport.Rules { return NewRules() }, nil)
}

func TestMemoryLimiter(t *testing.T) {
	TestLimiter(t, func(*testing.T) (controlport.Limiter, controlport.Limiter) {
		l := NewLimiter(time.Now)
		return l, l
	})
}

func TestMemoryJournal(t *testing.T) {
	TestJournal(t, func(*testing.T) (controlport.Journal, controlport.Journal) {
		j := NewJournal()
		return j, j
	})
}
