package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/paging"
)

// ErrBadBody is the error of a body that is not the JSON the route wants.
var ErrBadBody = kernel.E(kernel.Invalid, "bad_request", "invalid JSON body")

// BindJSON decodes the request body into v. A malformed body or a field of the
// wrong type is a 400 whose cause names the field.
func BindJSON(c *fiber.Ctx, v any) error {
	body := c.Body()
	if len(strings.TrimSpace(string(body))) == 0 {
		return ErrBadBody.With("request body is empty").WithCause("body", "a JSON body is required")
	}
	return DecodeJSON(body, v)
}

// DecodeJSON is BindJSON for bytes already read.
func DecodeJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				field = "body"
			}
			return ErrBadBody.Withf("field %s must be %s, got %s", field, jsonType(te.Type.Kind().String()), te.Value).
				WithCause(field, fmt.Sprintf("%s must be %s", field, jsonType(te.Type.Kind().String())))
		}
		return ErrBadBody.Withf("invalid JSON body: %v", err).WithCause("body", err.Error())
	}
	return CheckText(body)
}

func jsonType(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return goKind
}

// Paging reads the limit and offset query parameters.
func Paging(c *fiber.Ctx) (paging.Request, error) {
	return paging.Parse(c.Query("limit"), c.Query("offset"))
}

// Param returns a copy of a path parameter: fiber reuses its buffers, and
// values given to core may outlive the handler. feria's app runs fiber with
// Immutable (app/http.go), which copies already; the clone keeps routes safe
// on any app (tests build bare ones).
func Param(c *fiber.Ctx, name string) string {
	return strings.Clone(c.Params(name))
}

// Query returns a copy of a query parameter.
func Query(c *fiber.Ctx, name string) string {
	return strings.Clone(c.Query(name))
}

// ErrBadID is the error of a path id that is not a positive integer.
var ErrBadID = kernel.E(kernel.Invalid, "bad_request", "invalid id")

// PositiveID parses a numeric path id; field names it in the error.
func PositiveID(field, raw string) (int64, error) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, ErrBadID.Withf("%s must be a positive integer, got %q", field, raw).
			WithCause(field, field+" must be a positive integer")
	}
	return id, nil
}
