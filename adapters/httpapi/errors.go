// Package httpapi is the fiber plumbing every module's routes share: the one
// table from error Kind to status, the three error body shapes of the contract,
// authentication, paging, request ids, access logs, metrics and health.
package httpapi

import (
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/feria/feria/core/kernel"
)

// Shape is one of the contract's error body shapes. Routes pick theirs with
// UseShape because /users/... paths carry all three.
type Shape uint8

const (
	// ShapeDefault is (a): {message, error, status, cause}.
	ShapeDefault Shape = iota
	// ShapeBrands is (b): {error, message, status}.
	ShapeBrands
	// ShapeContacts is (c): {code, message}.
	ShapeContacts
)

// statusOf is the one table from Kind to HTTP status.
var statusOf = map[kernel.Kind]int{
	kernel.Internal:        fiber.StatusInternalServerError,
	kernel.Invalid:         fiber.StatusBadRequest,
	kernel.Unauthenticated: fiber.StatusUnauthorized,
	kernel.Permission:      fiber.StatusForbidden,
	kernel.NotExist:        fiber.StatusNotFound,
	kernel.NotAcceptable:   fiber.StatusNotAcceptable,
	kernel.Conflict:        fiber.StatusConflict,
	kernel.Unavailable:     fiber.StatusServiceUnavailable,
	kernel.Exhausted:       fiber.StatusTooManyRequests,
	kernel.TooLarge:        fiber.StatusRequestEntityTooLarge,
}

// defaultCode is the error code shown when a domain error names none.
var defaultCode = map[kernel.Kind]string{
	kernel.Internal:        "internal_server_error",
	kernel.Invalid:         "bad_request",
	kernel.Unauthenticated: "unauthorized",
	kernel.Permission:      "forbidden",
	kernel.NotExist:        "not_found",
	kernel.NotAcceptable:   "not_acceptable",
	kernel.Conflict:        "conflict",
	kernel.Unavailable:     "service_unavailable",
	kernel.Exhausted:       "too_many_requests",
	kernel.TooLarge:        "payload_too_large",
}

// ErrorBody is shape (a).
type ErrorBody struct {
	Message string         `json:"message"`
	Error   string         `json:"error"`
	Status  int            `json:"status"`
	Cause   []kernel.Cause `json:"cause"`
}

// BrandErrorBody is shape (b).
type BrandErrorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

// ContactErrorBody is shape (c).
type ContactErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

const shapeKey = "httpapi.shape"

// UseShape makes every error of the routes below it render in shape s. It
// returns one of three named handlers, so that RouteShape can tell a
// route's shape from its handlers without running them.
func UseShape(s Shape) fiber.Handler {
	switch s {
	case ShapeBrands:
		return useShapeBrands
	case ShapeContacts:
		return useShapeContacts
	}
	return useShapeDefault
}

func useShapeDefault(c *fiber.Ctx) error  { c.Locals(shapeKey, ShapeDefault); return c.Next() }
func useShapeBrands(c *fiber.Ctx) error   { c.Locals(shapeKey, ShapeBrands); return c.Next() }
func useShapeContacts(c *fiber.Ctx) error { c.Locals(shapeKey, ShapeContacts); return c.Next() }

// RetryAfter is the Retry-After of every 503 the service answers itself, in
// seconds.
const RetryAfter = "1"

// ErrorHandler renders any error a handler returns. Unknown errors become a
// 500 that names the request id; their text is logged, never shown.
func ErrorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		var fe *fiber.Error
		if errors.As(err, &fe) {
			if unread, ok := unreadRequest[fe.Code]; ok {
				return refuseUnread(c, log, unread)
			}
		}
		e := toDomain(err)
		status := statusOf[e.Kind]
		if e.Kind == kernel.Internal || e.Kind == kernel.Unavailable {
			log.ErrorContext(c.UserContext(), "request failed",
				slog.String("request_id", RequestID(c)), slog.String("route", c.Route().Path), slog.Any("err", err))
		}
		code := e.Code
		if code == "" {
			code = defaultCode[e.Kind]
		}
		msg := e.Message
		// An Internal error the code built with kernel.E carries a message
		// meant for clients (the contract's documented 500s); any other shows
		// only the request id.
		if e.Kind == kernel.Internal && e.Message == "" {
			msg = "internal server error (request id " + RequestID(c) + ")"
		}
		if e.Kind == kernel.Unavailable {
			// A backing service down or a lost race with other writers: the
			// same request is expected to pass a moment later.
			c.Set(fiber.HeaderRetryAfter, RetryAfter)
		}
		shape, _ := c.Locals(shapeKey).(Shape)
		return WriteError(c, shape, status, code, msg, e.Causes)
	}
}

// unread is the answer to a request the server could not read, and its
// status, which no Kind names.
type unread struct {
	status        int
	code, message string
}

// unreadRequest are fiber's errors for requests it could not read (headers
// beyond the read buffer, a client too slow to send its request, its
// connection failing mid-request), by the status fiber gives them. None is
// our fault: any client can cause them, so they must neither answer 500 nor
// log at ERROR.
var unreadRequest = map[int]unread{
	fiber.StatusRequestHeaderFieldsTooLarge: {fiber.StatusRequestHeaderFieldsTooLarge, "request_header_fields_too_large", "request headers too large"},
	fiber.StatusRequestTimeout:              {fiber.StatusRequestTimeout, "request_timeout", "request not received in time"},
	fiber.StatusBadGateway:                  {fiber.StatusBadRequest, "bad_request", "request could not be read"},
}

// refuseUnread answers a request fiber could not read: no middleware ran,
// so it makes the request id itself and logs one INFO line, as the access
// log does for any refused request.
func refuseUnread(c *fiber.Ctx, log *slog.Logger, u unread) error {
	id := RequestID(c)
	if id == "" {
		id = uuid.NewString()
		c.Locals(requestIDKey, id)
		c.Set(fiber.HeaderXRequestID, id)
	}
	log.LogAttrs(c.UserContext(), slog.LevelInfo, "request not read",
		slog.String("request_id", id), slog.Int("status", u.status), slog.String("error", u.code))
	return c.Status(u.status).JSON(ErrorBody{Message: u.message, Error: u.code, Status: u.status, Cause: []kernel.Cause{}})
}

// WriteError answers an error in shape s: the one place the three bodies
// of the contract are written (the error handler and the sandbox's faults).
func WriteError(c *fiber.Ctx, s Shape, status int, code, msg string, causes []kernel.Cause) error {
	switch s {
	case ShapeBrands:
		return c.Status(status).JSON(BrandErrorBody{Error: code, Message: msg, Status: status})
	case ShapeContacts:
		return c.Status(status).JSON(ContactErrorBody{Code: code, Message: msg})
	}
	if causes == nil {
		causes = []kernel.Cause{}
	}
	return c.Status(status).JSON(ErrorBody{Message: msg, Error: code, Status: status, Cause: causes})
}

// toDomain turns fiber's own errors (unknown route, bad method, body too
// large) into domain errors so that they render like any other.
func toDomain(err error) *kernel.Error {
	var e *kernel.Error
	if errors.As(err, &e) {
		return e
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusNotFound:
			return kernel.E(kernel.NotExist, "not_found", fe.Message)
		case fiber.StatusMethodNotAllowed:
			return kernel.E(kernel.NotExist, "not_found", "method not allowed on this resource")
		case fiber.StatusRequestEntityTooLarge:
			return kernel.E(kernel.Invalid, "bad_request", "request body too large")
		case fiber.StatusBadRequest, fiber.StatusUnprocessableEntity:
			return kernel.E(kernel.Invalid, "bad_request", fe.Message)
		case fiber.StatusServiceUnavailable:
			return kernel.E(kernel.Unavailable, "service_unavailable", fe.Message)
		}
	}
	return &kernel.Error{Kind: kernel.Internal, Err: err}
}

// DefaultErrorBody is the status and shape (a) body of a client error (not
// an Internal one, whose message names a request), for answers that embed
// an error in a larger body: the entries of a multi-get.
func DefaultErrorBody(err error) (int, ErrorBody) {
	e := toDomain(err)
	code := e.Code
	if code == "" {
		code = defaultCode[e.Kind]
	}
	causes := e.Causes
	if causes == nil {
		causes = []kernel.Cause{}
	}
	status := statusOf[e.Kind]
	return status, ErrorBody{Message: e.Message, Error: code, Status: status, Cause: causes}
}
