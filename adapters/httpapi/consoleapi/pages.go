package consoleapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/control"
	"github.com/feria/feria/core/kernel"
)

// fail renders a page's error: a client's mistake or an outage with its
// status and message, anything else as the service's own error.
func (x *console) fail(c *fiber.Ctx, page, title string, err error, data any) error {
	if kernel.KindOf(err) == kernel.Internal {
		return err
	}
	status, body := httpapi.DefaultErrorBody(err)
	return x.render(c.Status(status), page, title, view{Error: body.Message, Data: data})
}

// call runs a sandbox API call; an answer of 400 or more is an error
// carrying the API's message and the status.
func (x *console) call(c *fiber.Ctx, method, path, contentType string, body []byte) ([]byte, error) {
	status, out, err := x.cfg.Sandbox(c.UserContext(), method, path, contentType, body)
	if err != nil {
		return nil, err
	}
	if status >= 400 {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(out, &e)
		kind := kernel.Invalid
		switch {
		case status == fiber.StatusNotFound:
			kind = kernel.NotExist
		case status >= 500:
			kind = kernel.Unavailable
		}
		return nil, kernel.E(kind, "sandbox", fmt.Sprintf("%d: %s", status, e.Message))
	}
	return out, nil
}

// after redirects back to a page with a notice, or renders the error.
func (x *console) after(c *fiber.Ctx, page, notice string, err error) error {
	if err != nil {
		return x.fail(c, "request", "Not done", err, nil)
	}
	return c.Redirect(x.base(c)+"/"+page+"?notice="+url.QueryEscape(notice), fiber.StatusSeeOther)
}

type requestsView struct {
	Filter       control.Filter
	Status, User string
	Query        string
	Methods      []string
	Entries      []control.Entry
	Base         string
}

var methods = []string{"", "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}

// filter reads the Requests page's query: the journal's filters and a
// user id.
func (x *console) filter(c *fiber.Ctx) (requestsView, error) {
	v := requestsView{Methods: methods, Status: c.Query("status"), User: c.Query("user_id"), Base: x.base(c)}
	f, err := control.ParseFilter(httpapi.Query(c, "method"), httpapi.Query(c, "path"), v.Status, "")
	v.Filter = f
	if err != nil {
		return v, err
	}
	if v.User != "" {
		id, err := strconv.ParseInt(v.User, 10, 64)
		if err != nil || id <= 0 {
			return v, control.ErrBadFilter.With("user_id must be a positive integer")
		}
		v.Filter.UserID = id
	}
	q := url.Values{"method": {f.Method}, "path": {f.Path}, "status": {v.Status}, "user_id": {v.User}}
	v.Query = q.Encode()
	v.Entries, err = x.cfg.Controls.Requests(c.UserContext(), v.Filter)
	return v, err
}

func (x *console) requests(c *fiber.Ctx) error {
	v, err := x.filter(c)
	if err != nil {
		return x.fail(c, "requests", "Requests", err, v)
	}
	return x.render(c, "requests", "Requests", view{Data: v, Notice: c.Query("notice")})
}

// rows is the Requests table alone, which the page asks for again and
// again.
func (x *console) rows(c *fiber.Ctx) error {
	v, err := x.filter(c)
	if err != nil {
		status, body := httpapi.DefaultErrorBody(err)
		return c.Status(status).SendString(plainText(body.Message))
	}
	return x.execute(c, "rows", v)
}

type requestView struct {
	Entry                     control.Entry
	Request, Response         control.Message
	Limit                     *control.RateLimit
	RequestBody, ResponseBody string
	Curl                      string
}

func (x *console) request(c *fiber.Ctx) error {
	e, err := x.cfg.Controls.Request(c.UserContext(), httpapi.Param(c, "id"))
	if err != nil {
		return x.fail(c, "request", "Request", err, nil)
	}
	v := requestView{Entry: e}
	if e.Detail != nil {
		v.Request, v.Response, v.Limit = e.Detail.Request, e.Detail.Response, e.Detail.RateLimit
	}
	v.RequestBody, v.ResponseBody = pretty(v.Request.Body), pretty(v.Response.Body)
	v.Curl = curl(c.BaseURL()+httpapi.Base(c), e, v.Request)
	return x.render(c, "request", e.Method+" "+e.Path, view{Data: v})
}

// pretty indents a JSON body; any other text stays as it is.
func pretty(body string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(body), "", "  ") != nil {
		return body
	}
	return b.String()
}

// skipHeaders are the headers curl writes itself.
var skipHeaders = map[string]bool{"host": true, "content-length": true, "user-agent": true, "accept-encoding": true, "connection": true}

// curl is the request as a curl command, masked values included.
func curl(base string, e control.Entry, m control.Message) string {
	u := base + e.Path
	if e.Query != "" {
		u += "?" + e.Query
	}
	parts := []string{"curl", "-X", e.Method, shellQuote(u)}
	for _, h := range m.Headers {
		if !skipHeaders[strings.ToLower(h.Name)] {
			parts = append(parts, "-H", shellQuote(h.Name+": "+h.Value))
		}
	}
	if m.Body != "" {
		parts = append(parts, "--data-raw", shellQuote(m.Body))
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// plainText escapes an error for the rows' swap.
func plainText(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;").Replace(s)
}

type notification struct {
	Topic      string `json:"topic"`
	Resource   string `json:"resource"`
	UserID     int64  `json:"user_id"`
	Attempts   int    `json:"attempts"`
	State      string `json:"state"`
	Deliveries []struct {
		Attempt    int     `json:"attempt"`
		At         string  `json:"at"`
		HTTPCode   *int    `json:"http_code"`
		DurationMS float64 `json:"duration_ms"`
		Error      *string `json:"error"`
	} `json:"deliveries"`
}

type notificationsView struct {
	Apps          []string
	App           string
	Notifications []notification
	Missed        []notification
}

func (x *console) notifications(c *fiber.Ctx) error {
	var v notificationsView
	var err error
	if v.Apps, err = x.cfg.World.IDs(c.UserContext(), "applications", "", 200); err != nil {
		return x.fail(c, "notifications", "Notifications", err, v)
	}
	v.App = c.Query("app_id")
	if v.App == "" && len(v.Apps) > 0 {
		v.App = v.Apps[0]
	}
	if v.App != "" {
		if _, err := httpapi.PositiveID("app_id", v.App); err != nil {
			return x.fail(c, "notifications", "Notifications", err, notificationsView{Apps: v.Apps})
		}
		out, err := x.call(c, "GET", "/notifications?app_id="+url.QueryEscape(v.App), "", nil)
		if err != nil {
			return x.fail(c, "notifications", "Notifications", err, notificationsView{Apps: v.Apps})
		}
		var list struct {
			Notifications []notification `json:"notifications"`
		}
		if err := json.Unmarshal(out, &list); err != nil {
			return err
		}
		v.Notifications = list.Notifications
		for _, n := range list.Notifications {
			if n.State == "missed" {
				v.Missed = append(v.Missed, n)
			}
		}
	}
	return x.render(c, "notifications", "Notifications", view{Data: v, Notice: c.Query("notice")})
}

func (x *console) resend(c *fiber.Ctx) error {
	app, _ := strconv.ParseInt(c.FormValue("app_id"), 10, 64)
	user, _ := strconv.ParseInt(c.FormValue("user_id"), 10, 64)
	body, _ := json.Marshal(map[string]any{"app_id": app, "topic": c.FormValue("topic"), "resource": c.FormValue("resource"), "user_id": user})
	_, err := x.call(c, "POST", "/notifications", fiber.MIMEApplicationJSON, body)
	if err != nil {
		return x.after(c, "", "", err)
	}
	return c.Redirect(x.base(c)+"/notifications?app_id="+url.QueryEscape(c.FormValue("app_id"))+"&notice="+url.QueryEscape("Sent again."), fiber.StatusSeeOther)
}

type worldView struct {
	Counts            []Count
	Collection, Q, ID string
	IDs               []string
	Resource          string
}

func (x *console) world(c *fiber.Ctx) error {
	var v worldView
	var err error
	if v.Counts, err = x.cfg.World.Counts(c.UserContext()); err != nil {
		return x.fail(c, "world", "World", err, v)
	}
	v.Collection, v.Q, v.ID = c.Query("collection"), c.Query("q"), c.Query("id")
	if v.Collection != "" && !slices.ContainsFunc(v.Counts, func(n Count) bool { return n.Name == v.Collection }) {
		return x.fail(c, "world", "World", kernel.E(kernel.NotExist, "not_found", "no collection "+strconv.Quote(v.Collection)), worldView{Counts: v.Counts})
	}
	if v.Collection != "" {
		if v.IDs, err = x.cfg.World.IDs(c.UserContext(), v.Collection, v.Q, 50); err != nil {
			return x.fail(c, "world", "World", err, worldView{Counts: v.Counts})
		}
	}
	if v.Collection != "" && v.ID != "" {
		path := "/" + strings.ReplaceAll(v.Collection, "flex_subscriptions", "flex/subscriptions") + "/" + url.PathEscape(v.ID)
		out, err := x.call(c, "GET", path, "", nil)
		if err != nil {
			return x.fail(c, "world", "World", err, v)
		}
		v.Resource = pretty(string(out))
	}
	return x.render(c, "world", "World", view{Data: v, Notice: c.Query("notice")})
}

func (x *console) fixtures(c *fiber.Ctx) error {
	fh, err := c.FormFile("fixtures")
	if err != nil {
		return x.after(c, "", "", httpapi.ErrBadBody.With("choose a fixtures file to load"))
	}
	f, err := fh.Open()
	if err != nil {
		return x.after(c, "", "", httpapi.ErrBadBody.With("the fixtures file cannot be read"))
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		return x.after(c, "", "", httpapi.ErrBadBody.With("the fixtures file cannot be read"))
	}
	out, err := x.call(c, "POST", "/fixtures", fiber.MIMEApplicationJSON, b.Bytes())
	return x.after(c, "world", "Loaded: "+string(out), err)
}

func (x *console) reset(c *fiber.Ctx) error {
	if c.FormValue("confirm") != "reset" {
		return x.after(c, "", "", httpapi.ErrBadBody.With(`type "reset" to confirm the reset`))
	}
	_, err := x.call(c, "DELETE", "", "", nil)
	return x.after(c, "world", "The world was reset.", err)
}
