package httpapi

import (
	"encoding/json"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// The hottest lists (a 50-id contacts window, 200 compatibilities) write
// their answers by hand instead of through encoding/json's reflection,
// which was a fifth of their time under load. Each is held byte
// for byte to what encoding/json writes for its documented struct by a
// test of its package.

var jsonBufs = sync.Pool{New: func() any { return new([]byte) }}

// SendJSON answers the JSON document that appendTo appends to a pooled
// buffer.
func SendJSON(c *fiber.Ctx, appendTo func([]byte) []byte) error {
	p := jsonBufs.Get().(*[]byte)
	b := appendTo((*p)[:0])
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	c.Response().SetBody(b) // a copy: b goes back to the pool
	*p = b
	jsonBufs.Put(p)
	return nil
}

// AppendJSONString appends s quoted as encoding/json writes it: as it is
// when no byte needs escaping (ids, codes, most names), through
// encoding/json otherwise. A list of 200 compatibilities asks for 1,400
// strings: one table lookup a byte keeps the check cheap.
func AppendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if escaped[s[i]] {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// escaped marks the bytes encoding/json does not write as they are: control
// characters, quote, backslash, <, > and & (escaped for HTML), and every
// byte of a character beyond ASCII (which it checks for validity).
var escaped = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&'
	}
	return t
}()
