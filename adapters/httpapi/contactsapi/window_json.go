package contactsapi

import (
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/contacts"
)

// A time-window answer is written by hand, byte for byte what encoding/json
// writes for the struct documented in window_json_test.go (the test holds
// the two together): a 50-id window is 1,500 dated results, and encoding
// them by reflection was an eighth of the machine under load.
// Each result's date is formatted once per request with its JSON prefix,
// `{"date":"…","total":`, and copied into every window that shares it.

// resultPrefixes are the `{"date":"…","total":` of one window's results,
// kept in one buffer: ends[i] is where result i's prefix ends.
type resultPrefixes struct {
	buf  []byte
	ends []int
	// of is the window they were made from.
	of *contacts.Window
}

// fits tells whether w's results start where of's do, interval by interval.
func (p *resultPrefixes) fits(w *contacts.Window) bool {
	o := p.of
	return o != nil && w.Len() == o.Len() && w.Unit == o.Unit && w.From.Equal(o.From) && w.Desc == o.Desc
}

func (p *resultPrefixes) make(w *contacts.Window) {
	p.buf, p.ends, p.of = p.buf[:0], p.ends[:0], w
	for i := range w.Len() {
		p.buf = append(p.buf, `{"date":"`...)
		p.buf = appendDate(p.buf, w.Result(i).Start)
		p.buf = append(p.buf, `","total":`...)
		p.ends = append(p.ends, len(p.buf))
	}
}

func (p *resultPrefixes) get(i int) []byte {
	start := 0
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.buf[start:p.ends[i]]
}

// prefixBufs pools the result prefixes of one request's windows.
var prefixBufs = sync.Pool{New: func() any { return new(resultPrefixes) }}

// sendWindows answers ws as a JSON array, or its one window as an object
// when one is true.
func sendWindows(c *fiber.Ctx, ws []contacts.Window, one bool) error {
	pre := prefixBufs.Get().(*resultPrefixes)
	defer func() { pre.of = nil; prefixBufs.Put(pre) }()
	return httpapi.SendJSON(c, func(b []byte) []byte {
		if one {
			return appendWindow(b, &ws[0], pre)
		}
		b = append(b, '[')
		for i := range ws {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendWindow(b, &ws[i], pre)
		}
		return append(b, ']')
	})
}

// appendWindow writes one window: item_id or user_id, total, date_from,
// date_to, last (a string in messaging-app answers, as the marketplace shows it),
// unit, results.
func appendWindow(b []byte, w *contacts.Window, pre *resultPrefixes) []byte {
	b = append(b, '{')
	if w.Subject.Item != "" {
		b = append(b, `"item_id":`...)
		b = httpapi.AppendJSONString(b, w.Subject.Item)
	} else {
		b = append(b, `"user_id":"`...)
		b = strconv.AppendInt(b, w.Subject.User, 10)
		b = append(b, '"')
	}
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, w.Total, 10)
	b = append(b, `,"date_from":"`...)
	b = appendDate(b, w.From)
	b = append(b, `","date_to":"`...)
	b = appendDate(b, w.To)
	b = append(b, `","last":`...)
	if w.Kind == contacts.MsgApp {
		b = append(b, '"')
		b = strconv.AppendInt(b, int64(w.Last), 10)
		b = append(b, '"')
	} else {
		b = strconv.AppendInt(b, int64(w.Last), 10)
	}
	b = append(b, `,"unit":`...)
	b = httpapi.AppendJSONString(b, string(w.Unit))
	b = append(b, `,"results":[`...)
	if !pre.fits(w) {
		pre.make(w)
	}
	for i := range w.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, pre.get(i)...)
		b = strconv.AppendInt(b, w.Count(i), 10)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendDate writes contacts.FormatDate(t) (RFC 3339 in UTC: digits, '-',
// ':', 'T' and 'Z', nothing JSON escapes).
func appendDate(b []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(b, time.RFC3339)
}
