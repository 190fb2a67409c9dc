package kernel_test

import (
	"errors"
	"testing"

	"github.com/feria/feria/core/kernel"
	"github.com/google/go-cmp/cmp"
)

func TestProblems(t *testing.T) {
	base := kernel.E(kernel.Invalid, "bad_request", "invalid thing")
	tests := []struct {
		name    string
		add     func(*kernel.Problems)
		wantNil bool
		message string
		causes  []kernel.Cause
	}{
		{name: "none", add: func(*kernel.Problems) {}, wantNil: true},
		{
			name:    "one",
			add:     func(p *kernel.Problems) { p.Add("name", "name is required") },
			message: "name is required",
			causes:  []kernel.Cause{{Code: "name", Message: "name is required"}},
		},
		{
			name: "first becomes the message, all are causes in order",
			add: func(p *kernel.Problems) {
				p.Add("site_id", "site_id must be one of %s, got %q", "MLA, MLB", "XXX")
				p.Add("items[0].quantity", "%s.quantity must be a positive integer", "items[0]")
			},
			message: `site_id must be one of MLA, MLB, got "XXX"`,
			causes: []kernel.Cause{
				{Code: "site_id", Message: `site_id must be one of MLA, MLB, got "XXX"`},
				{Code: "items[0].quantity", Message: "items[0].quantity must be a positive integer"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p kernel.Problems
			tt.add(&p)
			err := p.Err(base)
			if tt.wantNil {
				if err != nil || !p.Empty() {
					t.Fatalf("Err = %v, Empty = %v; want nil, true", err, p.Empty())
				}
				return
			}
			var e *kernel.Error
			if !errors.As(err, &e) {
				t.Fatalf("Err = %T %v, want *kernel.Error", err, err)
			}
			if !errors.Is(err, base) || e.Kind != kernel.Invalid || e.Code != "bad_request" {
				t.Errorf("kind/code = %v/%s, want the base's", e.Kind, e.Code)
			}
			if e.Message != tt.message {
				t.Errorf("message = %q, want %q", e.Message, tt.message)
			}
			if diff := cmp.Diff(tt.causes, e.Causes); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
			if base.Message != "invalid thing" || len(base.Causes) != 0 {
				t.Errorf("base was modified: %+v", base)
			}
		})
	}
}
