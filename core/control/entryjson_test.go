package control

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sampleEntry is a journal entry as a cheap route makes one: a dozen
// headers and a JSON answer of a couple of KiB.
func sampleEntry() Entry {
	user, fault, method := int64(123), int64(7), "GET"
	body := `{"id":"MLA1100","site_id":"MLA","title":"Item <1> & \"quoted\"","seller_id":123,"category_id":"MLA1747","price":1500.5,` +
		`"currency_id":"ARS","available_quantity":10,"zip_code":"1414","attributes":[` +
		strings.Repeat(`{"id":"BRAND","name":"Marca","value_id":"206","value_name":"Ford\u00e9 ü"},`, 20) + `{}]}`
	return Entry{ID: "7a0f2a52-4a8e-4c4e-9d0e-2d3c0b1a9f10", At: time.Date(2026, 11, 29, 3, 4, 5, 123456789, time.UTC),
		Method: "GET", Path: "/items/MLA1100", Query: "attributes=id,title&access_token=***", Status: 200, DurationMS: 0.412,
		UserID: &user, FaultID: &fault,
		Detail: &Detail{
			Request: Message{Headers: []Header{{"Host", "127.0.0.1:8080"}, {"User-Agent", "wrk"}, {"Authorization", "Bearer ***"},
				{"Accept", "*/*"}, {"X-Request-Id", "7a0f2a52"}, {"Line\nbreak", "tab\there\x01\u2028"}}},
			Response:  Message{Headers: []Header{{"Content-Type", "application/json"}, {"X-Request-Id", "7a0f2a52"}}, Body: body, Size: len(body)},
			RateLimit: &RateLimit{Method: &method, Path: "/items/*", PerMinute: 60},
		}}
}

// The hand-written encoding reads back as the same entry as
// encoding/json's, whatever the strings hold.
func TestAppendJSON(t *testing.T) {
	full := sampleEntry()
	bare := full
	bare.UserID, bare.FaultID, bare.Detail = nil, nil, nil
	noLimit := sampleEntry()
	noLimit.Detail.RateLimit.Method = nil
	noLimit.Detail.Request.Headers = nil
	odd := sampleEntry()
	odd.Detail.Response.Body = "bad \xff\xfe utf-8 \"<script>\" \u2029 \x00"
	for _, f := range []float64{0, 1e-7, 3.25, 1e21, 123456789.125, -2e-9} {
		e := full
		e.DurationMS = f
		same(t, e)
	}
	for _, e := range []Entry{full, bare, noLimit, odd} {
		same(t, e)
	}
	nan := full
	nan.DurationMS = math.NaN()
	if !json.Valid(nan.AppendJSON(nil)) {
		t.Error("a NaN duration made invalid JSON")
	}
}

// same checks that AppendJSON reads back as json.Marshal does, and writes
// the same bytes but for the HTML escapes encoding/json adds.
func same(t *testing.T, e Entry) {
	t.Helper()
	got := e.AppendJSON(nil)
	want, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var a, b Entry
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("read back differently:\n%s\n%s", got, want)
	}
	var html bytes.Buffer
	json.HTMLEscape(&html, got)
	if !bytes.Equal(html.Bytes(), want) {
		t.Errorf("bytes differ:\n%s\n%s", html.Bytes(), want)
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("GET", "/items/x", "a=1", "Host", "h\x00\"\\", "{\"a\":\"\xff\"}", 1.5)
	f.Fuzz(func(t *testing.T, method, path, query, name, value, body string, d float64) {
		e := sampleEntry()
		e.Method, e.Path, e.Query, e.DurationMS = method, path, query, d
		e.Detail.Request.Headers = append(e.Detail.Request.Headers, Header{name, value})
		e.Detail.Request.Body = body
		if math.IsNaN(d) || math.IsInf(d, 0) {
			if !json.Valid(e.AppendJSON(nil)) {
				t.Fatal("invalid JSON")
			}
			return
		}
		same(t, e)
	})
}

func BenchmarkEntryJSON(b *testing.B) {
	e := sampleEntry()
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = e.AppendJSON(buf[:0])
		}
	})
}

func BenchmarkMaskBody(b *testing.B) {
	// A small answer, and a large one cut at the bound: many short quoted
	// names and dates, as a window of visits is.
	var large strings.Builder
	for i := 0; large.Len() < 4*BodyBound; i++ {
		fmt.Fprintf(&large, `{"date":"2026-10-%02dT00:00:00Z","total":%d,"detail":[{"company":"mercadolibre","quantity":%d}]},`, i%28+1, i, i)
	}
	// A list whose members are snake_case, as a list of compatibilities
	// is: '_', 'c' and 'p', the first bytes of the secret names' ends, on
	// every line.
	var list strings.Builder
	for i := 0; list.Len() < 4*BodyBound; i++ {
		fmt.Fprintf(&list, `{"id":"%d","domain_id":"MLA-CARS_AND_VANS","catalog_product_id":"MLA%d","catalog_product_name":"Peugeot 208 1.6 %d","source":"DEFAULT","creation_source":"ITEM","reputation":{"level":"high","total_claims":%d}},`, i, 15000+i, 2010+i%15, i%7)
	}
	for name, body := range map[string][]byte{"small": []byte(sampleEntry().Detail.Response.Body), "large": []byte(large.String()), "list": []byte(list.String())} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				MaskBody("application/json", body)
			}
		})
	}
}
