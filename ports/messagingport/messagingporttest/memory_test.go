package messagingporttest

import (
	"testing"

	"github.com/feria/feria/ports/messagingport"
)

func TestMemory(t *testing.T) {
	TestMessages(t, func(testing.TB) messagingport.Messages { return NewMemory() })
	TestReadsAndAttachments(t, func(testing.TB) Store { return NewMemory() })
}
