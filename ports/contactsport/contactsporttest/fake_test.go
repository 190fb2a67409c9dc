package contactsporttest

import (
	"testing"

	"github.com/feria/feria/ports/contactsport"
)

func TestFakeCounters(t *testing.T) {
	TestCounters(t, func(*testing.T) contactsport.Counters { return NewCounters() })
}
