package control

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Operation is one operation of the public API as the contract document
// writes it: its method, its path template ({name} parameters) and the
// area it belongs to.
type Operation struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Area   string `json:"area"`
}

// Key names the operation in the coverage counts.
func (o Operation) Key() string { return o.Method + " " + o.Path }

// Operations finds the operation that serves a request, the way the router
// would: segment by segment, a literal segment before a parameter at the
// first place two templates differ (/orders/search before
// /orders/{order_id}).
type Operations struct {
	list     []Operation
	byMethod map[string][]template
}

type template struct {
	segs []string // "" for a parameter
	op   int
}

// NewOperations indexes the operations of the contract, in its order.
func NewOperations(list []Operation) *Operations {
	o := &Operations{list: slices.Clone(list), byMethod: map[string][]template{}}
	for i, op := range list {
		segs := split(op.Path)
		for j, s := range segs {
			if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
				segs[j] = ""
			}
		}
		o.byMethod[op.Method] = append(o.byMethod[op.Method], template{segs: segs, op: i})
	}
	for _, ts := range o.byMethod {
		slices.SortStableFunc(ts, func(a, b template) int {
			for i := range min(len(a.segs), len(b.segs)) {
				if la, lb := a.segs[i] != "", b.segs[i] != ""; la != lb {
					if la {
						return -1
					}
					return 1
				}
			}
			return 0
		})
	}
	return o
}

func split(path string) []string {
	return strings.Split(strings.Trim(path, "/"), "/")
}

// List is the operations in the contract's order.
func (o *Operations) List() []Operation { return o.list }

// Match returns the operation serving method and path (a HEAD is its GET,
// as the router serves it); false when no operation does.
func (o *Operations) Match(method, path string) (Operation, bool) {
	if method == "HEAD" {
		method = "GET"
	}
	segs := split(path)
	for _, t := range o.byMethod[method] {
		if matches(t.segs, segs) {
			return o.list[t.op], true
		}
	}
	return Operation{}, false
}

func matches(tmpl, segs []string) bool {
	if len(tmpl) != len(segs) {
		return false
	}
	for i, s := range tmpl {
		if segs[i] == "" || (s != "" && !strings.EqualFold(s, segs[i])) {
			return false
		}
	}
	return true
}

// Tally is how one answer counts: the operation, the status, and whether a
// fault rule or a rate limit shaped it. Its Field is the name of its count
// in the store, so that counting is one increment.
type Tally struct {
	Op          string // Operation.Key
	Status      int
	Faulted     bool
	RateLimited bool
}

// Field is the tally's name in the store: "<op>|<status>|<mark>", where the
// mark is f (faulted), l (rate limited) or empty.
func (t Tally) Field() string {
	mark := ""
	switch {
	case t.Faulted:
		mark = "f"
	case t.RateLimited:
		mark = "l"
	}
	return t.Op + "|" + strconv.Itoa(t.Status) + "|" + mark
}

// ParseTally reads a Field back; false for a name it did not write.
func ParseTally(field string) (Tally, bool) {
	i := strings.LastIndexByte(field, '|')
	if i < 0 {
		return Tally{}, false
	}
	head, mark := field[:i], field[i+1:]
	j := strings.LastIndexByte(head, '|')
	if j < 0 {
		return Tally{}, false
	}
	status, err := strconv.Atoi(head[j+1:])
	if err != nil || (mark != "" && mark != "f" && mark != "l") {
		return Tally{}, false
	}
	return Tally{Op: head[:j], Status: status, Faulted: mark == "f", RateLimited: mark == "l"}, true
}

// Coverage is what the public API was asked since the last reset
// (docs/sandbox.md, "Coverage").
type Coverage struct {
	Since      time.Time           `json:"since"`
	Operations []OperationCoverage `json:"operations"`
	Summary    CoverageSummary     `json:"summary"`
}

// OperationCoverage is one operation's calls.
type OperationCoverage struct {
	Operation
	Calls       int64            `json:"calls"`
	Statuses    map[string]int64 `json:"statuses"`
	Faulted     int64            `json:"faulted"`
	RateLimited int64            `json:"rate_limited"`
}

// CoverageSummary counts the operations, those called and those that
// answered an error (a status of 400 or more) at least once.
type CoverageSummary struct {
	Operations    int `json:"operations"`
	Called        int `json:"called"`
	WithErrorSeen int `json:"with_error_seen"`
}

// Gaps lists the operations never called, then those called that never
// answered an error: what an integration's tests left untested.
func (c Coverage) Gaps() (uncalled, noError []OperationCoverage) {
	for _, op := range c.Operations {
		switch {
		case op.Calls == 0:
			uncalled = append(uncalled, op)
		case !op.errorSeen():
			noError = append(noError, op)
		}
	}
	return uncalled, noError
}

func (o OperationCoverage) errorSeen() bool {
	for s := range o.Statuses {
		if n, _ := strconv.Atoi(s); n >= 400 {
			return true
		}
	}
	return false
}

// BuildCoverage turns the stored counts (by Tally field) into the coverage
// of every operation, in the contract's order; counts of an operation the
// contract no longer has are left out.
func BuildCoverage(ops []Operation, counts map[string]int64, since time.Time) Coverage {
	byKey := make(map[string]*OperationCoverage, len(ops))
	out := Coverage{Since: since.UTC(), Operations: make([]OperationCoverage, len(ops))}
	for i, op := range ops {
		out.Operations[i] = OperationCoverage{Operation: op, Statuses: map[string]int64{}}
		byKey[op.Key()] = &out.Operations[i]
	}
	fields := make([]string, 0, len(counts))
	for f := range counts {
		fields = append(fields, f)
	}
	slices.SortFunc(fields, cmp.Compare)
	for _, f := range fields {
		t, ok := ParseTally(f)
		oc := byKey[t.Op]
		if !ok || oc == nil || counts[f] <= 0 {
			continue
		}
		n := counts[f]
		oc.Calls += n
		oc.Statuses[strconv.Itoa(t.Status)] += n
		if t.Faulted {
			oc.Faulted += n
		}
		if t.RateLimited {
			oc.RateLimited += n
		}
	}
	out.Summary.Operations = len(ops)
	for _, op := range out.Operations {
		if op.Calls > 0 {
			out.Summary.Called++
		}
		if op.errorSeen() {
			out.Summary.WithErrorSeen++
		}
	}
	return out
}
