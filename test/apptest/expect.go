package apptest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Is fails the test unless the answer has that status and a JSON body equal
// to want, key order and white space aside: the one way HTTP tests assert
// an answer. A failure names the request and shows the difference, field
// by field (- want, + got).
//
//	a.Do("GET", "/items/MLA1", nil).Is(t, 404, apptest.Err(404, "not_found", "item not found"))
func (r Response) Is(t testing.TB, status int, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the expected body is not JSON (%v): %s", r.Request, err, want)
	}
	var g any
	if err := json.Unmarshal(r.Body, &g); err != nil {
		t.Errorf("%s: %d, want %d; the body is not JSON: %s", r.Request, r.Status, status, r.Body)
		return
	}
	if r.Status != status {
		t.Errorf("%s: status %d, want %d; body %s", r.Request, r.Status, status, r.Body)
		return
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s: body differs (-want +got):\n%s", r.Request, diff)
	}
}

// OK fails the test unless the answer has that status and a JSON body,
// which it returns decoded, for tests that look at a part of an answer
// whose rest is generated (ids, dates of now).
func (r Response) OK(t testing.TB, status int) any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: status %d, want %d; body %s", r.Request, r.Status, status, r.Body)
	}
	var v any
	if len(r.Body) > 0 {
		if err := json.Unmarshal(r.Body, &v); err != nil {
			t.Fatalf("%s: the body is not JSON (%v): %s", r.Request, err, r.Body)
		}
	}
	return v
}

// HasStatus stops the test unless the answer has that status, and returns
// it, for answers whose body is not JSON or is checked apart (a file, a
// text, an exact byte order).
func (r Response) HasStatus(t testing.TB, status int) Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: status %d, want %d; body %s", r.Request, r.Status, status, r.Body)
	}
	return r
}

// Err is the JSON of an error answer in the contract's default shape (a):
// {message, error, status, cause}; causes are code, message pairs.
func Err(status int, code, message string, causes ...string) string {
	cs := []map[string]string{}
	for i := 0; i+1 < len(causes); i += 2 {
		cs = append(cs, map[string]string{"code": causes[i], "message": causes[i+1]})
	}
	b, err := json.Marshal(map[string]any{"message": message, "error": code, "status": status, "cause": cs})
	if err != nil {
		panic(err)
	}
	return string(b)
}
