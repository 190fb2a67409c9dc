package worldsporttest

import "testing"

func TestMemoryRegistry(t *testing.T) { TestRegistry(t, NewRegistry()) }
