package fiscalporttest

import (
	"testing"

	"github.com/feria/feria/ports/fiscalport"
)

func TestMemory(t *testing.T) {
	TestDocuments(t, func(testing.TB) fiscalport.Documents { return NewMemory() })
}
