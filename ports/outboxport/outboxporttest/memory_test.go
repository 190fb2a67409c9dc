package outboxporttest

import "testing"

func TestMemory(t *testing.T) { TestStore(t, func(testing.TB) Store { return NewMemory() }) }
