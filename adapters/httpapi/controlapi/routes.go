package controlapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/control"
	"github.com/feria/feria/ports/controlport"
)

// SandboxRoutes serves the controls under /sandbox (behind its key):
// fault rules, rate limits and the request journal.
func SandboxRoutes(r fiber.Router, svc controlport.Service) {
	h := controls{svc}
	r.Post("/faults", h.addFault)
	r.Get("/faults", h.faults)
	r.Get("/faults/:id", h.fault)
	r.Delete("/faults", h.deleteFaults)
	r.Delete("/faults/:id", h.deleteFault)
	r.Get("/rate_limits", h.rateLimits)
	r.Put("/rate_limits", h.setRateLimits)
	r.Get("/requests", h.requests)
	r.Get("/coverage", h.coverage)
}

// controls are the handlers of the /sandbox controls.
type controls struct{ svc controlport.Service }

// listed answers {key: v}, or err.
func listed(c *fiber.Ctx, key string, v any, err error) error {
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{key: v})
}

func (h controls) addFault(c *fiber.Ctx) error {
	var in control.FaultInput
	if err := httpapi.BindJSON(c, &in); err != nil {
		return err
	}
	f, err := h.svc.AddFault(c.UserContext(), statusWords(in))
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(f)
}

func (h controls) faults(c *fiber.Ctx) error {
	fs, err := h.svc.Faults(c.UserContext())
	return listed(c, "faults", fs, err)
}

func (h controls) fault(c *fiber.Ctx) error {
	id, err := httpapi.PositiveID("id", c.Params("id"))
	if err != nil {
		return err
	}
	fs, err := h.svc.Faults(c.UserContext())
	if err != nil {
		return err
	}
	for _, f := range fs {
		if f.ID == id {
			return c.JSON(f)
		}
	}
	return control.ErrFaultNotFound.Withf("fault rule %d not found", id)
}

func (h controls) deleteFaults(c *fiber.Ctx) error {
	if err := h.svc.DeleteFaults(c.UserContext()); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h controls) deleteFault(c *fiber.Ctx) error {
	id, err := httpapi.PositiveID("id", c.Params("id"))
	if err != nil {
		return err
	}
	if err := h.svc.DeleteFault(c.UserContext(), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h controls) rateLimits(c *fiber.Ctx) error {
	ls, err := h.svc.RateLimits(c.UserContext())
	return listed(c, "rules", ls, err)
}

func (h controls) setRateLimits(c *fiber.Ctx) error {
	var body struct {
		Rules *[]control.RateLimitInput `json:"rules"`
	}
	if err := httpapi.BindJSON(c, &body); err != nil {
		return err
	}
	if body.Rules == nil {
		return control.ErrInvalid.With(`rules is required: {"rules": [...]}, or {"rules": []} for none`).
			WithCause("rules", "rules is required")
	}
	ls, err := h.svc.SetRateLimits(c.UserContext(), *body.Rules)
	return listed(c, "rules", ls, err)
}

func (h controls) requests(c *fiber.Ctx) error {
	f, err := control.ParseFilter(httpapi.Query(c, "method"), httpapi.Query(c, "path"), c.Query("status"), c.Query("limit"))
	if err != nil {
		return err
	}
	es, err := h.svc.Requests(c.UserContext(), f)
	return listed(c, "requests", es, err)
}

func (h controls) coverage(c *fiber.Ctx) error {
	cov, err := h.svc.Coverage(c.UserContext())
	if err != nil {
		return err
	}
	return c.JSON(cov)
}

// statusWords names an error status's error and message where the rule
// does not: the code feria itself answers for that status, else the
// status's text in snake case ("Bad Gateway" → bad_gateway), and the
// status's text.
func statusWords(in control.FaultInput) control.FaultInput {
	if in.Status == nil || *in.Status == 0 {
		return in
	}
	status := *in.Status
	text := http.StatusText(status)
	if in.Error == nil || strings.TrimSpace(*in.Error) == "" {
		code := StatusCode(status)
		in.Error = &code
	}
	if in.Message == nil || *in.Message == "" {
		msg := text
		if msg == "" {
			msg = "error " + strconv.Itoa(status)
		}
		in.Message = &msg
	}
	return in
}

// StatusCode is the error code of a status: feria's own where it answers
// that status, else the status's text in snake case.
func StatusCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "bad_request"
	case http.StatusTooManyRequests:
		return "too_many_requests"
	case http.StatusInternalServerError:
		return "internal_server_error"
	}
	text := http.StatusText(status)
	if text == "" {
		return "error_" + strconv.Itoa(status)
	}
	text = strings.NewReplacer("-", " ", "'", "").Replace(strings.ToLower(text))
	return strings.Join(strings.Fields(text), "_")
}
