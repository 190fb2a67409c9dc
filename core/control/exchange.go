package control

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"regexp"
	"strings"
	"unicode/utf8"
)

// BodyBound is how much of a request's or an answer's body the journal
// keeps; a longer body is cut there and marked Truncated.
const BodyBound = 8 << 10

// Detail is what the journal keeps of a request beyond its line: both
// messages, masked and bounded, and the rate limit that refused it (the
// fault rule is the entry's FaultID).
type Detail struct {
	Request   Message    `json:"request"`
	Response  Message    `json:"response"`
	RateLimit *RateLimit `json:"rate_limit,omitempty"`
}

// Message is one side of an exchange: headers in the order sent, and the
// body as text. Size is the whole body's length in bytes.
type Message struct {
	Headers   []Header `json:"headers"`
	Body      string   `json:"body"`
	Size      int      `json:"size"`
	Truncated bool     `json:"truncated"`
}

// Header is one header line.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MaskHeader returns the value the journal keeps of a header: a
// credential's scheme only ("Bearer ***"), a cookie not at all, a URL's
// secret parameters masked (a redirect's code), anything else as sent.
// Names are compared without case and without a copy: every header of
// every journaled request goes through here.
func MaskHeader(name, value string) string {
	switch {
	case strings.EqualFold(name, "cookie"), strings.EqualFold(name, "set-cookie"):
		return Masked
	case strings.EqualFold(name, "authorization"), strings.EqualFold(name, "proxy-authorization"),
		strings.EqualFold(name, "x-sandbox-key"):
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " " + Masked
		}
		return Masked
	case strings.EqualFold(name, "location"):
		if path, q, ok := strings.Cut(value, "?"); ok {
			return path + "?" + MaskQuery(q)
		}
	}
	return value
}

// secretField matches a JSON string member whose value is a credential;
// a string the bound cut short (no closing quote) is matched too.
var secretField = regexp.MustCompile(`"(access_token|refresh_token|client_secret|sandbox_key|password|code)"(\s*:\s*)"((?:[^"\\]|\\.)*)("|\\?$)`)

// errorCode is what an error body's "code" holds (not_found): a word the
// journal keeps, unlike an authorization code.
var errorCode = regexp.MustCompile(`^[a-z_.]*$`)

// MaskBody returns the text the journal keeps of a body of contentType:
// at most BodyBound bytes (truncated reports a cut), with every credential
// masked (JSON members and form parameters named like MaskQuery's, and
// sandbox_key and password); a body that is not text is described, not
// kept: one of a type that is not text (a PDF, an image, whatever its
// bytes), or of no type and not UTF-8.
func MaskBody(contentType string, raw []byte) (body string, truncated bool) {
	if len(raw) == 0 {
		return "", false
	}
	ct := strings.ToLower(contentType)
	if !strings.Contains(ct, "json") && (ct != "" && !textual(ct) || !utf8.Valid(cut(raw, 512))) {
		if ct == "" {
			return "(body not kept)", false
		}
		return "(" + ct + " body not kept)", false
	}
	if len(raw) > BodyBound {
		raw, truncated = cut(raw, BodyBound), true
	}
	if strings.Contains(ct, "x-www-form-urlencoded") {
		return MaskQuery(string(raw)), truncated
	}
	if !mayHoldSecret(raw) {
		return string(raw), truncated
	}
	return secretField.ReplaceAllStringFunc(string(raw), maskField), truncated
}

// textual is a content type (lower case, not JSON) whose bodies are
// text: text/*, XML, a form; multipart/form-data is not (its parts are
// files).
func textual(ct string) bool {
	return strings.HasPrefix(ct, "text/") || strings.Contains(ct, "xml") || strings.HasPrefix(ct, "application/x-www-form-urlencoded")
}

// cut is raw's first n bytes (all of raw when shorter), less the start of
// a character the bound split (at most 3 bytes, found by looking back from
// the bound rather than by a pass over the body): what is kept, or checked
// for text, never ends in half a character.
func cut(raw []byte, n int) []byte {
	if len(raw) <= n {
		return raw
	}
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(raw[i]) {
			return raw[:i]
		}
	}
	return raw[:n]
}

// secretNames are secretField's member names with their opening quote.
var secretNames = [][]byte{[]byte(`"code`), []byte(`"access_token`), []byte(`"refresh_token`),
	[]byte(`"client_secret`), []byte(`"sandbox_key`), []byte(`"password`)}

// le32 is the little-endian word of a name's last four bytes.
func le32(s string) uint32 { return binary.LittleEndian.Uint32([]byte(s)) }

// The names' last four bytes, as the word before a closing quote.
var (
	endCode  = le32("code")
	endToken = le32("oken")
	endCret  = le32("cret")
	endKey   = le32("_key")
	endWord  = le32("word")
)

// mayHoldSecret is the cheap test before the expression: whether a quote
// closes a secret member's name ("password" and the others, whole:
// "zip_code" does not count). One pass over the body, eight bytes at a
// time; at a quote, the four bytes before it are one word compared with
// the names' ends, and only a match is compared with the whole names. (A
// search per name hopped from one false start to the next on the bytes
// names start with, '_', 'c' and 'p', on every line of a JSON list: 16 µs
// for an 8 KiB list, under 6 this way.)
func mayHoldSecret(raw []byte) bool {
	const ones, highs, quotes = 0x0101010101010101, 0x8080808080808080, 0x2222222222222222
	i := 0
	for ; i+8 <= len(raw); i += 8 {
		// A quote's byte is 0 in x; m marks every 0 byte, and maybe a 1
		// byte above one (a borrow), which closesName rules out.
		x := binary.LittleEndian.Uint64(raw[i:]) ^ quotes
		for m := (x - ones) &^ x & highs; m != 0; m &= m - 1 {
			if closesName(raw, i+bits.TrailingZeros64(m)/8) {
				return true
			}
		}
	}
	for ; i < len(raw); i++ {
		if closesName(raw, i) {
			return true
		}
	}
	return false
}

// closesName: raw[q] is a quote that closes one of secretNames.
func closesName(raw []byte, q int) bool {
	if q < len(`"code`) || raw[q] != '"' {
		return false
	}
	switch binary.LittleEndian.Uint32(raw[q-4:]) {
	case endCode, endToken, endCret, endKey, endWord:
		for _, n := range secretNames {
			if bytes.HasSuffix(raw[:q], n) {
				return true
			}
		}
	}
	return false
}

func maskField(m string) string {
	sub := secretField.FindStringSubmatch(m)
	if sub[1] == "code" && errorCode.MatchString(sub[3]) && sub[4] == `"` {
		return m
	}
	return `"` + sub[1] + `"` + sub[2] + `"` + Masked + `"`
}
