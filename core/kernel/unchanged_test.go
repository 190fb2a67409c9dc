package kernel_test

import (
	"testing"
	"time"

	"github.com/feria/feria/core/kernel"
)

func TestUnchanged(t *testing.T) {
	type res struct {
		Name    string    `json:"name"`
		Tags    []string  `json:"tags"`
		Updated time.Time `json:"updated"`
	}
	clear := func(r *res) { r.Updated = time.Time{} }
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		a, b res
		want bool
	}{
		{"only the ignored date differs", res{"a", []string{"x"}, t0}, res{"a", []string{"x"}, t0.Add(time.Hour)}, true},
		{"a field differs", res{"a", nil, t0}, res{"b", nil, t0}, false},
		{"a list differs", res{"a", []string{"x"}, t0}, res{"a", []string{"y"}, t0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kernel.Unchanged(tt.a, tt.b, clear); got != tt.want {
				t.Errorf("Unchanged = %v, want %v", got, tt.want)
			}
		})
	}
}
