package consoleapi

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/control"
)

type controlsView struct {
	Faults []control.Fault
	Limits string
	Now    string
	Frozen bool
}

func (x *console) controls(c *fiber.Ctx) error {
	var v controlsView
	var err error
	if v.Faults, err = x.cfg.Controls.Faults(c.UserContext()); err != nil {
		return x.fail(c, "controls", "Controls", err, v)
	}
	limits, err := x.cfg.Controls.RateLimits(c.UserContext())
	if err != nil {
		return x.fail(c, "controls", "Controls", err, v)
	}
	raw, _ := json.MarshalIndent(map[string]any{"rules": limits}, "", "  ")
	v.Limits = string(raw)
	out, err := x.call(c, "GET", "/clock", "", nil)
	if err != nil {
		return x.fail(c, "controls", "Controls", err, v)
	}
	var clock struct {
		Now    string `json:"now"`
		Frozen bool   `json:"frozen"`
	}
	_ = json.Unmarshal(out, &clock)
	v.Now, v.Frozen = clock.Now, clock.Frozen
	return x.render(c, "controls", "Controls", view{Data: v, Notice: c.Query("notice")})
}

// addFault sends the form as POST /sandbox/faults: empty fields are left
// out (the API's defaults), numbers as numbers, anything else as the text
// typed, which the API refuses naming the field.
func (x *console) addFault(c *fiber.Ctx) error {
	in := map[string]any{"path": c.FormValue("path")}
	if m := c.FormValue("method"); m != "" {
		in["method"] = m
	}
	for _, name := range []string{"status", "latency_ms", "times", "probability"} {
		v := strings.TrimSpace(c.FormValue(name))
		if v == "" {
			continue
		}
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			in[name] = n
		} else {
			in[name] = v
		}
	}
	body, _ := json.Marshal(in)
	out, err := x.call(c, "POST", "/faults", fiber.MIMEApplicationJSON, body)
	var f control.Fault
	_ = json.Unmarshal(out, &f)
	return x.after(c, "controls", fmt.Sprintf("Fault rule %d added.", f.ID), err)
}

func (x *console) deleteFault(c *fiber.Ctx) error {
	id, err := httpapi.PositiveID("id", httpapi.Param(c, "id"))
	if err != nil {
		return x.after(c, "", "", err)
	}
	err = x.cfg.Controls.DeleteFault(c.UserContext(), id)
	return x.after(c, "controls", fmt.Sprintf("Fault rule %d deleted.", id), err)
}

func (x *console) rateLimits(c *fiber.Ctx) error {
	_, err := x.call(c, "PUT", "/rate_limits", fiber.MIMEApplicationJSON, []byte(c.FormValue("rules")))
	return x.after(c, "controls", "Rate limits replaced.", err)
}

func (x *console) clock(c *fiber.Ctx) error {
	body := []byte(`{"now": null}`)
	if c.FormValue("real") == "" {
		body, _ = json.Marshal(map[string]string{"now": strings.TrimSpace(c.FormValue("now"))})
	}
	_, err := x.call(c, "PUT", "/clock", fiber.MIMEApplicationJSON, body)
	return x.after(c, "controls", "Clock set.", err)
}

type coverageArea struct {
	Name string
	Ops  []coverageOp
}

type coverageOp struct {
	control.OperationCoverage
	Statuses string
}

type coverageView struct {
	Since                    string
	Total, Called, WithError int
	Areas                    []coverageArea
}

// coverage groups the operations by area, each area's gaps first (never
// called, then called without an error seen), areas in the contract's
// order.
func (x *console) coverage(c *fiber.Ctx) error {
	cov, err := x.cfg.Controls.Coverage(c.UserContext())
	if err != nil {
		return x.fail(c, "coverage", "Coverage", err, nil)
	}
	v := coverageView{Total: cov.Summary.Operations, Called: cov.Summary.Called, WithError: cov.Summary.WithErrorSeen}
	if !cov.Since.IsZero() {
		v.Since = cov.Since.Format(time.RFC3339)
	} else {
		v.Since = "the start"
	}
	index := map[string]int{}
	for _, op := range cov.Operations {
		i, ok := index[op.Area]
		if !ok {
			i = len(v.Areas)
			index[op.Area] = i
			v.Areas = append(v.Areas, coverageArea{Name: op.Area})
		}
		v.Areas[i].Ops = append(v.Areas[i].Ops, coverageOp{OperationCoverage: op, Statuses: statuses(op.Statuses)})
	}
	for _, a := range v.Areas {
		slices.SortStableFunc(a.Ops, func(p, q coverageOp) int { return cmp.Compare(gap(p), gap(q)) })
	}
	return x.render(c, "coverage", "Coverage", view{Data: v})
}

// gap orders an operation: 0 never called, 1 called without an error
// seen, 2 called and seen failing.
func gap(op coverageOp) int {
	if op.Calls == 0 {
		return 0
	}
	for s := range op.OperationCoverage.Statuses {
		if s >= "400" {
			return 2
		}
	}
	return 1
}

func statuses(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
