package contacts

import (
	"testing"
	"time"
)

func TestResponseTimes(t *testing.T) {
	at := func(s string) time.Time {
		d, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	q := func(asked, answered string) AskedQuestion {
		return AskedQuestion{DateCreated: at(asked), Answer: &Answer{DateCreated: at(answered)}}
	}
	got := ResponseTimes(7, []AskedQuestion{
		q("2026-11-20T10:00:00Z", "2026-11-20T10:30:00Z"), // Friday, working hours: 30
		q("2026-11-20T17:59:00Z", "2026-11-20T18:09:00Z"), // Friday, working hours: 10
		q("2026-11-20T18:00:00Z", "2026-11-21T09:00:00Z"), // Friday, extra hours: 900
		q("2026-11-21T12:00:00Z", "2026-11-23T12:00:00Z"), // Saturday: 2880
		{DateCreated: at("2026-11-22T12:00:00Z")},         // unanswered: not counted
	})
	want := map[string]int64{"total": 955, "weekend": 2880, "working": 20, "extra": 900}
	for name, p := range map[string]*int64{"total": got.Total, "weekend": got.Weekend, "working": got.WorkingHours, "extra": got.ExtraHours} {
		if p == nil || *p != want[name] {
			t.Errorf("%s = %v, want %d", name, p, want[name])
		}
	}
	if none := ResponseTimes(7, nil); none.Total != nil || none.Weekend != nil || none.UserID != 7 {
		t.Errorf("no answered question: %+v", none)
	}
}

func TestParseQuestionStatus(t *testing.T) {
	for _, s := range []string{"", "UNANSWERED", "ANSWERED", "BANNED"} {
		if got, err := ParseQuestionStatus(s); err != nil || got != s {
			t.Errorf("%q: %q %v", s, got, err)
		}
	}
	if _, err := ParseQuestionStatus("answered"); err == nil {
		t.Error("a lowercase status was accepted")
	}
}
