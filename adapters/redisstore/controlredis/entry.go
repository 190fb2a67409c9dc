package controlredis

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/feria/feria/core/control"
)

// A journal entry is stored as the lengths of its two bodies ("12 8190"),
// a newline, the entry's JSON without its bodies, then both bodies as they
// are. The bodies are most of an entry's bytes (up to control.BodyBound
// each) and a JSON answer is mostly quotes: escaping them into a JSON
// string cost a public request more than the rest of its entry. Read back,
// they are put into the entry's detail again.

// appendEntry appends e as stored; e itself is left as it was.
func appendEntry(b []byte, e control.Entry) []byte {
	d := e.Detail
	if d == nil {
		return e.AppendJSON(b)
	}
	req, res := d.Request.Body, d.Response.Body
	bare := *d
	bare.Request.Body, bare.Response.Body = "", ""
	e.Detail = &bare
	b = strconv.AppendInt(b, int64(len(req)), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(res)), 10)
	b = append(b, '\n')
	b = e.AppendJSON(b)
	b = append(b, req...)
	return append(b, res...)
}

// decodeEntry reads an entry appendEntry wrote, or one held as JSON alone
// (an entry without a detail, or written before the bodies were kept
// apart).
func decodeEntry(raw string) (control.Entry, error) {
	var e control.Entry
	if strings.HasPrefix(raw, "{") {
		err := json.Unmarshal([]byte(raw), &e)
		return e, err
	}
	head, rest, _ := strings.Cut(raw, "\n")
	reqLen, resLen, _ := strings.Cut(head, " ")
	n, err1 := strconv.Atoi(reqLen)
	m, err2 := strconv.Atoi(resLen)
	if err1 != nil || err2 != nil || n < 0 || m < 0 || n+m > len(rest) {
		return e, fmt.Errorf("the bodies' lengths %q do not fit its %d bytes", head, len(rest))
	}
	doc, bodies := rest[:len(rest)-n-m], rest[len(rest)-n-m:]
	if err := json.Unmarshal([]byte(doc), &e); err != nil {
		return e, err
	}
	if e.Detail == nil {
		return e, fmt.Errorf("bodies without a detail")
	}
	e.Detail.Request.Body, e.Detail.Response.Body = bodies[:n], bodies[n:]
	return e, nil
}
