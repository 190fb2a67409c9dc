package worlds

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "ci-42", "0", "a-b-c", strings.Repeat("x", MaxNameLen), "9z"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "-a", "a-", "-", "A", "ci_42", "ci.42", "é", "a b", "a/b", strings.Repeat("x", MaxNameLen+1)} {
		if err := CheckName(bad); !errors.Is(err, ErrName) {
			t.Errorf("CheckName(%q) = %v, want ErrName", bad, err)
		}
	}
}

func TestCheckKey(t *testing.T) {
	if err := CheckKey(strings.Repeat("k", MinKeyLen)); err != nil {
		t.Error(err)
	}
	if err := CheckKey(strings.Repeat("k", MinKeyLen-1)); !errors.Is(err, ErrKey) {
		t.Errorf("a short key: %v", err)
	}
}

func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"a", "ci-42", "-", "A", "", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		if len(name) == 0 || len(name) > MaxNameLen || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" ||
			strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
			t.Fatalf("CheckName accepted %q", name)
		}
	})
}
