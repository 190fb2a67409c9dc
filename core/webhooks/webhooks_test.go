package webhooks_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/feria/feria/core/webhooks"
)

func TestTopics(t *testing.T) {
	want := []string{"items", "questions", "orders_v2", "messages", "shipments", "flex-handshakes"}
	got := webhooks.TopicNames()
	if len(got) != len(want) {
		t.Fatalf("topics %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("topics %v, want docs/sandbox.md's %v", got, want)
		}
	}
	if _, ok := webhooks.LookupTopic("payments"); ok {
		t.Fatal("unknown topic found")
	}
}

func TestNotifies(t *testing.T) {
	fp := func(v any) string {
		s, err := webhooks.Fingerprint(v)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	items, _ := webhooks.LookupTopic("items")
	questions, _ := webhooks.LookupTopic("questions")
	handshakes, _ := webhooks.LookupTopic("flex-handshakes")
	tests := []struct {
		name             string
		topic            webhooks.Topic
		created, changed bool
		state            string
		want             bool
	}{
		{"item created", items, true, false, fp(map[string]int{"a": 1}), true},
		{"item changed", items, false, true, fp(1), true},
		{"item unchanged", items, false, false, fp(1), false},
		{"question created", questions, false, false, "", true},
		{"shipment created without a driver", handshakes, true, false, fp(nil), false},
		{"shipment created with a driver", handshakes, true, false, fp(777), true},
		{"driver changed", handshakes, false, true, fp(778), true},
		{"driver unchanged", handshakes, false, false, fp(778), false},
	}
	for _, tt := range tests {
		if got, err := tt.topic.Notifies(tt.created, tt.changed, tt.state); err != nil || got != tt.want {
			t.Errorf("%s: %v %v", tt.name, got, err)
		}
	}
	var none *int64
	if fp(none) != fp(nil) {
		t.Error("a nil driver id is the initial state")
	}
}

func TestAttempts(t *testing.T) {
	ack := 500 * time.Millisecond
	tests := []struct {
		name string
		x    webhooks.Exchange
		ok   bool
		why  string
	}{
		{"200 in time", webhooks.Exchange{Status: 200, Duration: ack}, true, ""},
		{"200 too late", webhooks.Exchange{Status: 200, Duration: ack + time.Millisecond}, false, "answered 200 after 501 ms, later than ack_timeout_ms 500"},
		{"201", webhooks.Exchange{Status: 201, Duration: time.Millisecond}, false, "answered HTTP 201, not 200"},
		{"a redirect", webhooks.Exchange{Status: 301}, false, "answered HTTP 301, not 200"},
		{"nothing answered", webhooks.Exchange{Err: "connection refused"}, false, "connection refused"},
	}
	for _, tt := range tests {
		if tt.x.Succeeded(ack) != tt.ok || tt.x.Failure(ack) != tt.why {
			t.Errorf("%s: %v %q", tt.name, tt.x.Succeeded(ack), tt.x.Failure(ack))
		}
	}
	delays := webhooks.DefaultDelays
	for attempt := 1; attempt <= webhooks.MaxAttempts; attempt++ {
		state, delay := webhooks.After(attempt, false, delays)
		switch {
		case attempt < webhooks.MaxAttempts && (state != webhooks.Retrying || delay != delays[attempt-1]):
			t.Errorf("after failed attempt %d: %s %s", attempt, state, delay)
		case attempt == webhooks.MaxAttempts && state != webhooks.Missed:
			t.Errorf("after the last attempt: %s", state)
		}
		if state, _ := webhooks.After(attempt, true, delays); state != webhooks.Delivered {
			t.Errorf("after a good attempt %d: %s", attempt, state)
		}
	}
	r := webhooks.Exchange{Duration: 1500 * time.Millisecond}.Response()
	if b, _ := json.Marshal(r); string(b) != `{"req_time":1500,"http_code":null,"body":"","headers":{}}` {
		t.Errorf("response of nothing: %s", b)
	}
	if b, _ := json.Marshal(webhooks.Exchange{Status: 500, Body: "a\x00b\xff", Headers: map[string]string{"X": "\x00"}}.Response()); string(b) != `{"req_time":0,"http_code":500,"body":"a�b�","headers":{"X":"�"}}` {
		t.Errorf("a receiver's NUL and invalid UTF-8 are kept as text: %s", b)
	}
	if b, _ := json.Marshal(webhooks.Exchange{Status: 404, Body: "no", Headers: map[string]string{"A": "b"}}.Response()); string(b) != `{"req_time":0,"http_code":404,"body":"no","headers":{"A":"b"}}` {
		t.Errorf("response: %s", b)
	}
}

func TestBodyAndAge(t *testing.T) {
	received := time.Date(2026, 11, 20, 9, 0, 0, 100_000_000, time.FixedZone("ART", -3*3600))
	sent := time.Date(2026, 11, 20, 12, 0, 0, 123_456_000, time.UTC)
	n := webhooks.Notification{ID: "f9f08571", AppID: 789, Topic: "items", Resource: "/items/MLA1100", UserID: 123, Received: received, Attempts: 1, Sent: &sent}
	b, _ := json.Marshal(n.Body())
	if string(b) != `{"_id":"f9f08571","resource":"/items/MLA1100","user_id":123,"topic":"items","application_id":789,"attempts":1,"sent":"2026-11-20T12:00:00.123Z","received":"2026-11-20T12:00:00.100Z"}` {
		t.Fatalf("body %s", b)
	}
	var back webhooks.Body
	if err := json.Unmarshal(b, &back); err != nil || !time.Time(*back.Sent).Equal(sent.Truncate(time.Millisecond)) {
		t.Fatalf("read back: %+v %v", back, err)
	}
	at := sent
	m := webhooks.Notification{State: webhooks.Missed, MissedAt: &at}
	if !m.Listed(at.Add(webhooks.KeepMissed-time.Nanosecond)) || m.Listed(at.Add(webhooks.KeepMissed)) || (webhooks.Notification{State: webhooks.Retrying}).Listed(at) {
		t.Fatal("a missed feed is listed for two days after its last attempt, then gone")
	}
}
