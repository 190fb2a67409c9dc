package control

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends the entry as encoding/json writes it (the same
// members in the same order, strings made valid UTF-8), without its
// reflection and maps: the journal encodes one entry per public request,
// a detail of headers and two bodies of up to BodyBound bytes each.
// json.Unmarshal reads it back into the same Entry.
func (e *Entry) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, e.ID)
	b = append(b, `,"at":"`...)
	b = e.At.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","method":`...)
	b = appendString(b, e.Method)
	b = append(b, `,"path":`...)
	b = appendString(b, e.Path)
	b = append(b, `,"query":`...)
	b = appendString(b, e.Query)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(e.Status), 10)
	b = append(b, `,"duration_ms":`...)
	b = appendFloat(b, e.DurationMS)
	b = append(b, `,"user_id":`...)
	b = appendIntPtr(b, e.UserID)
	b = append(b, `,"fault_id":`...)
	b = appendIntPtr(b, e.FaultID)
	if d := e.Detail; d != nil {
		b = append(b, `,"detail":{"request":`...)
		b = d.Request.appendJSON(b)
		b = append(b, `,"response":`...)
		b = d.Response.appendJSON(b)
		if l := d.RateLimit; l != nil {
			b = append(b, `,"rate_limit":{"method":`...)
			if l.Method == nil {
				b = append(b, "null"...)
			} else {
				b = appendString(b, *l.Method)
			}
			b = append(b, `,"path":`...)
			b = appendString(b, l.Path)
			b = append(b, `,"per_minute":`...)
			b = strconv.AppendInt(b, int64(l.PerMinute), 10)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func (m *Message) appendJSON(b []byte) []byte {
	b = append(b, `{"headers":`...)
	if m.Headers == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, h := range m.Headers {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendString(b, h.Name)
			b = append(b, `,"value":`...)
			b = appendString(b, h.Value)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"body":`...)
	b = appendString(b, m.Body)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, int64(m.Size), 10)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, m.Truncated)
	return append(b, '}')
}

func appendIntPtr(b []byte, p *int64) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *p, 10)
}

// appendFloat writes a float as encoding/json does (no exponent between
// 1e-6 and 1e21); a NaN or an infinity, which JSON cannot hold, as 0.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		// e-09 → e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

const hex = "0123456789abcdef"

// plain marks the bytes a JSON string holds as they are.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString writes s as a JSON string: quotes, backslashes and control
// characters escaped, each invalid UTF-8 byte as U+FFFD, and U+2028 and
// U+2029 escaped (as encoding/json does, for JavaScript).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
