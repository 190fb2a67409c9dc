package control

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
)

func TestPathMatches(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"/items/*/compatibilities", "/items/MLA1/compatibilities", true},
		{"/items/*/compatibilities", "/items/MLA1/compatibilities/", false},
		{"/items/*/compatibilities", "/items//compatibilities", false},
		{"/items/*/compatibilities", "/items/MLA1/MLA2/compatibilities", false},
		{"/items/*/compatibilities", "/items/compatibilities", false},
		{"/items/*", "/items/MLA1", true},
		{"/items/*", "/items/", false},
		{"/items/*", "/items", false},
		{"/items/*", "/items/MLA1/x", false},
		{"/items", "/items", true},
		{"/items", "/items/", false},
		{"/items", "/Items", false},
		{"/*", "/anything", true},
		{"/*/*", "/a/b", true},
		{"/", "/", true},
		{"/items/MLA*", "/items/MLA1", false},  // * is a wildcard only as a whole segment
		{"/items/MLA*", "/items/MLA*", true},   // elsewhere it is itself
		{"/items/a%20b", "/items/a%20b", true}, // the path as sent, undecoded
		{"/items/a b", "/items/a%20b", false},  // never decoded
		{"/users/*/brands/*", "/users/1/brands/2", true},
	}
	for _, c := range cases {
		if got := PathMatches(c.pattern, c.path); got != c.want {
			t.Errorf("PathMatches(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestPublic(t *testing.T) {
	cases := map[string]bool{
		"/items/MLA1": true, "/": true, "/sandboxes": true, "/healthy": true, "/openapi": true, "/documents": true,
		"/sandbox": false, "/sandbox/": false, "/sandbox/faults": false, "/SANDBOX/faults": false,
		"/health/live": false, "/health/ready": false, "/metrics": false, "/admin/jobs/": false,
		"/openapi.json": false, "/openapi.yaml": false, "/OpenAPI.json": false, "/docs": false, "/docs/index.html": false,
	}
	for path, want := range cases {
		if got := Public(path); got != want {
			t.Errorf("Public(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestMaskQuery(t *testing.T) {
	cases := map[string]string{
		"":                                  "",
		"ids=MLA1,MLA2&last=7":              "ids=MLA1,MLA2&last=7",
		"access_token=APP_USR-x":            "access_token=***",
		"a=1&access_token=APP_USR-x&b=2":    "a=1&access_token=***&b=2",
		"access_token=x&access_token=y":     "access_token=***&access_token=***",
		"access%5Ftoken=APP_USR-x":          "access%5Ftoken=***",
		"access_token=":                     "access_token=***",
		"access_token":                      "access_token",
		"my_access_token=x":                 "my_access_token=x",
		"q=access_token%3Dx":                "q=access_token%3Dx",
		"access_token=a%26b&x=access_token": "access_token=***&x=access_token",
	}
	for in, want := range cases {
		if got := MaskQuery(in); got != want {
			t.Errorf("MaskQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCallerKey(t *testing.T) {
	if got := CallerKey(&kernel.Caller{UserID: 123}, "10.0.0.1"); got != "user:123" {
		t.Errorf("user caller: %q", got)
	}
	if got := CallerKey(&kernel.Caller{UserID: 123, AppID: 789}, "10.0.0.1"); got != "app:789" {
		t.Errorf("application's token: %q", got)
	}
	if got := CallerKey(nil, "10.0.0.1"); got != "addr:10.0.0.1" {
		t.Errorf("no caller: %q", got)
	}
}

func TestNewFault(t *testing.T) {
	f, err := NewFault(FaultInput{Path: kerneltest.Ptr("/items/*")})
	if err != nil {
		t.Fatal(err)
	}
	want := Fault{Path: "/items/*", Probability: 1, RetryAfter: 1}
	if b, w := js(f), js(want); b != w {
		t.Errorf("defaults: %s, want %s", b, w)
	}
	f, err = NewFault(FaultInput{Method: kerneltest.Ptr("get"), Path: kerneltest.Ptr("/items/*"), Status: kerneltest.Ptr(503), Error: kerneltest.Ptr(" unavailable "), Message: kerneltest.Ptr("later"),
		Times: kerneltest.Ptr(3), LatencyMS: kerneltest.Ptr(20), Probability: kerneltest.Ptr(0.5), RetryAfter: kerneltest.Ptr(0)})
	if err != nil {
		t.Fatal(err)
	}
	want = Fault{Method: kerneltest.Ptr("GET"), Path: "/items/*", Status: 503, Error: "unavailable", Message: "later",
		LatencyMS: 20, Probability: 0.5, Times: kerneltest.Ptr(3), RetryAfter: 0}
	if b, w := js(f), js(want); b != w {
		t.Errorf("filled: %s, want %s", b, w)
	}

	bad := []struct {
		in    FaultInput
		cause string
	}{
		{FaultInput{}, "path"},
		{FaultInput{Path: kerneltest.Ptr("items")}, "path"},
		{FaultInput{Path: kerneltest.Ptr("/items?x=1")}, "path"},
		{FaultInput{Path: kerneltest.Ptr("/" + strings.Repeat("a", MaxPatternLen))}, "path"},
		{FaultInput{Path: kerneltest.Ptr("/x"), Method: kerneltest.Ptr("")}, "method"},
		{FaultInput{Path: kerneltest.Ptr("/x"), Method: kerneltest.Ptr("GE T")}, "method"},
		{FaultInput{Path: kerneltest.Ptr("/x"), Status: kerneltest.Ptr(200)}, "status"},
		{FaultInput{Path: kerneltest.Ptr("/x"), Status: kerneltest.Ptr(600)}, "status"},
		{FaultInput{Path: kerneltest.Ptr("/x"), Status: kerneltest.Ptr(-1)}, "status"},
		{FaultInput{Path: kerneltest.Ptr("/x"), LatencyMS: kerneltest.Ptr(-1)}, "latency_ms"},
		{FaultInput{Path: kerneltest.Ptr("/x"), LatencyMS: kerneltest.Ptr(int(MaxLatency.Milliseconds()) + 1)}, "latency_ms"},
		{FaultInput{Path: kerneltest.Ptr("/x"), Probability: kerneltest.Ptr(1.01)}, "probability"},
		{FaultInput{Path: kerneltest.Ptr("/x"), Probability: kerneltest.Ptr(-0.1)}, "probability"},
		{FaultInput{Path: kerneltest.Ptr("/x"), Times: kerneltest.Ptr(0)}, "times"},
		{FaultInput{Path: kerneltest.Ptr("/x"), RetryAfter: kerneltest.Ptr(-1)}, "retry_after"},
		{FaultInput{Path: kerneltest.Ptr("/x"), RetryAfter: kerneltest.Ptr(MaxRetryAfter + 1)}, "retry_after"},
	}
	for _, c := range bad {
		_, err := NewFault(c.in)
		var e *kernel.Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || len(e.Causes) != 1 || e.Causes[0].Code != c.cause {
			t.Errorf("NewFault(%s): %v, want one cause %s", js(c.in), err, c.cause)
		}
	}
}

func TestNewRateLimits(t *testing.T) {
	got, err := NewRateLimits([]RateLimitInput{{Method: kerneltest.Ptr("post"), Path: kerneltest.Ptr("/a"), PerMinute: kerneltest.Ptr(5)}, {Path: kerneltest.Ptr("/b/*"), PerMinute: kerneltest.Ptr(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"method":"POST","path":"/a","per_minute":5},{"method":null,"path":"/b/*","per_minute":1}]`; js(got) != want {
		t.Errorf("got %s, want %s", js(got), want)
	}
	if got, err := NewRateLimits(nil); err != nil || len(got) != 0 {
		t.Errorf("none: %v %v", got, err)
	}
	_, err = NewRateLimits([]RateLimitInput{{Path: kerneltest.Ptr("/a"), PerMinute: kerneltest.Ptr(1)}, {Path: kerneltest.Ptr("b"), PerMinute: kerneltest.Ptr(0)}, {Path: kerneltest.Ptr("/c")}})
	var e *kernel.Error
	if !errors.As(err, &e) {
		t.Fatalf("bad rules: %v", err)
	}
	if want := `[{"code":"rules[1].path","message":"rules[1]: path must start with /, got \"b\""},{"code":"rules[1].per_minute","message":"rules[1]: per_minute must be 1..1000000, got 0"},{"code":"rules[2].per_minute","message":"rules[2]: per_minute is required"}]`; js(e.Causes) != want {
		t.Errorf("causes %s\nwant %s", js(e.Causes), want)
	}
	many := make([]RateLimitInput, MaxRateLimits+1)
	if _, err := NewRateLimits(many); err == nil {
		t.Errorf("%d rules accepted", len(many))
	}
}

func TestDefaultRateLimitsAreValid(t *testing.T) {
	var in []RateLimitInput
	for _, l := range DefaultRateLimits() {
		in = append(in, RateLimitInput{Method: l.Method, Path: &l.Path, PerMinute: &l.PerMinute})
	}
	if _, err := NewRateLimits(in); err != nil {
		t.Fatal(err)
	}
	limits := DefaultRateLimits()
	cases := []struct {
		method, path string
		per          int
	}{
		{"POST", "/catalog_compatibilities/products_search/count_family_products", CompatPerMinute},
		{"POST", "/items/MLA1/compatibilities", CompatPerMinute},
		{"PUT", "/items/MLA1/compatibilities", CompatPerMinute},
		{"DELETE", "/items/MLA1/compatibilities/42", CompatPerMinute},
		{"GET", "/items/MLA1/compatibilities", 0},
		{"GET", "/items/MLA1", 0},
		{"POST", "/sites/MLA/shipping/selfservice/items/MLA1", FlexPerMinute},
		{"GET", "/flex/sites/MLA/shipments/1/assignment/v1", FlexPerMinute},
	}
	for _, c := range cases {
		i := FirstLimit(limits, c.method, c.path)
		got := 0
		if i >= 0 {
			got = limits[i].PerMinute
		}
		if got != c.per {
			t.Errorf("%s %s: limit %d, want %d", c.method, c.path, got, c.per)
		}
	}
}

func TestParseFilter(t *testing.T) {
	f, err := ParseFilter("GET", "/items/MLA1", "404", "")
	if err != nil || f != (Filter{Method: "GET", Path: "/items/MLA1", Status: 404, Limit: DefaultJournalLimit}) {
		t.Errorf("got %+v %v", f, err)
	}
	if f, err := ParseFilter("", "", "", "1000"); err != nil || f.Limit != MaxJournalLimit {
		t.Errorf("max limit: %+v %v", f, err)
	}
	for _, bad := range [][2]string{{"x", ""}, {"99", ""}, {"", "1001"}, {"", "-1"}, {"", "ten"}} {
		if _, err := ParseFilter("", "", bad[0], bad[1]); !errors.Is(err, ErrBadFilter) {
			t.Errorf("status %q limit %q: %v", bad[0], bad[1], err)
		}
	}
}

func TestFilterSelect(t *testing.T) {
	es := []Entry{{ID: "3", Method: "GET", Path: "/a", Status: 200}, {ID: "2", Method: "POST", Path: "/a", Status: 404}, {ID: "1", Method: "GET", Path: "/b", Status: 200}}
	ids := func(es []Entry) string {
		var s []string
		for _, e := range es {
			s = append(s, e.ID)
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{Limit: 50}, "3,2,1"},
		{Filter{Limit: 2}, "3,2"},
		{Filter{Limit: 0}, ""},
		{Filter{Method: "GET", Limit: 50}, "3,1"},
		{Filter{Path: "/a", Limit: 50}, "3,2"},
		{Filter{Status: 404, Limit: 50}, "2"},
		{Filter{Method: "get", Limit: 50}, ""},
	} {
		if got := ids(c.f.Select(es)); got != c.want {
			t.Errorf("%+v: %s, want %s", c.f, got, c.want)
		}
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, time.Second: 1, 1001 * time.Millisecond: 2, 59 * time.Second: 59} {
		if got := (Verdict{RetryAfter: d}).RetryAfterSeconds(); got != want {
			t.Errorf("%v: %d, want %d", d, got, want)
		}
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
