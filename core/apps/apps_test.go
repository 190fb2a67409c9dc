package apps_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/apps"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/webhooks"
)

func valid() apps.Application {
	return apps.Application{ID: 789, Name: "my-integration", OwnerID: 123, ClientSecret: "s",
		CallbackURL: "http://127.0.0.1:9999/notifications", Topics: []string{"items", "orders_v2"},
		Users: []int64{456}}.WithDefaults()
}

func TestValidate(t *testing.T) {
	long := "http://h/" + strings.Repeat("a", apps.MaxCallbackURL)
	tests := []struct {
		name   string
		change func(*apps.Application)
		causes []string // the fields named, in order; none: valid
	}{
		{"valid", func(*apps.Application) {}, nil},
		{"https", func(a *apps.Application) { a.CallbackURL = "https://example.com/cb?x=1" }, nil},
		{"no topics, no users", func(a *apps.Application) { a.Topics, a.Users = []string{}, []int64{} }, nil},
		{"every topic", func(a *apps.Application) { a.Topics = webhooks.TopicNames() }, nil},
		{"seven delays", func(a *apps.Application) { a.RetryDelaysMS = []int64{0, 1, 2, 3, 4, 5, apps.MaxRetryDelayMS} }, nil},
		{"bounds of the ack", func(a *apps.Application) { a.AckTimeoutMS = apps.MaxAckTimeoutMS }, nil},
		{"id", func(a *apps.Application) { a.ID = 0 }, []string{"app_id"}},
		{"name", func(a *apps.Application) { a.Name = "  " }, []string{"name"}},
		{"owner", func(a *apps.Application) { a.OwnerID = -1 }, []string{"owner_id"}},
		{"secret", func(a *apps.Application) { a.ClientSecret = "" }, []string{"client_secret"}},
		{"no callback", func(a *apps.Application) { a.CallbackURL = "" }, []string{"callback_url"}},
		{"ftp callback", func(a *apps.Application) { a.CallbackURL = "ftp://h/x" }, []string{"callback_url"}},
		{"relative callback", func(a *apps.Application) { a.CallbackURL = "/notifications" }, []string{"callback_url"}},
		{"callback with credentials", func(a *apps.Application) { a.CallbackURL = "http://u:p@h/x" }, []string{"callback_url"}},
		{"long callback", func(a *apps.Application) { a.CallbackURL = long }, []string{"callback_url"}},
		{"unknown topic", func(a *apps.Application) { a.Topics = []string{"items", "payments"} }, []string{"topics[1]"}},
		{"bad user", func(a *apps.Application) { a.Users = []int64{456, 0} }, []string{"users[1]"}},
		{"ack zero", func(a *apps.Application) { a.AckTimeoutMS = -5 }, []string{"ack_timeout_ms"}},
		{"ack too long", func(a *apps.Application) { a.AckTimeoutMS = apps.MaxAckTimeoutMS + 1 }, []string{"ack_timeout_ms"}},
		{"six delays", func(a *apps.Application) { a.RetryDelaysMS = []int64{1, 2, 3, 4, 5, 6} }, []string{"retry_delays_ms"}},
		{"empty delays", func(a *apps.Application) { a.RetryDelaysMS = []int64{} }, []string{"retry_delays_ms"}},
		{"negative delay", func(a *apps.Application) { a.RetryDelaysMS = []int64{0, 0, -1, 0, 0, 0, 0} }, []string{"retry_delays_ms[2]"}},
		{"delay too long", func(a *apps.Application) { a.RetryDelaysMS = []int64{0, 0, 0, 0, 0, 0, apps.MaxRetryDelayMS + 1} }, []string{"retry_delays_ms[6]"}},
		{"several at once", func(a *apps.Application) { a.Name, a.CallbackURL = "", "x" }, []string{"name", "callback_url"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := valid()
			tt.change(&a)
			err := a.Validate()
			if tt.causes == nil {
				if err != nil {
					t.Fatalf("valid application refused: %v", err)
				}
				return
			}
			var e *kernel.Error
			if !errors.As(err, &e) || !errors.Is(err, apps.ErrInvalidApplication) {
				t.Fatalf("got %v, want ErrInvalidApplication", err)
			}
			var got []string
			for _, c := range e.Causes {
				got = append(got, c.Code)
			}
			if !slices.Equal(got, tt.causes) {
				t.Fatalf("causes %v, want %v (%+v)", got, tt.causes, e.Causes)
			}
		})
	}
}

func TestDefaultsAndGrants(t *testing.T) {
	a := apps.Application{OwnerID: 123, Topics: []string{"items", "items", "questions"}, Users: []int64{456, 456, 123}}.WithDefaults()
	if a.AckTimeoutMS != apps.DefaultAckTimeoutMS || !slices.Equal(a.Topics, []string{"items", "questions"}) || !slices.Equal(a.Users, []int64{456, 123}) {
		t.Fatalf("defaults: %+v", a)
	}
	if got := (apps.Application{}).WithDefaults(); got.Topics == nil || got.Users == nil || got.RetryDelaysMS != nil {
		t.Fatalf("empty lists must be [] and the schedule null: %+v", got)
	}
	b := apps.Application{OwnerID: 123, Users: []int64{456}}
	if !b.Granted(123) || !b.Granted(456) || b.Granted(789) || !slices.Equal(b.Grants(), []int64{456, 123}) {
		t.Fatalf("grants of %+v: %v", b, b.Grants())
	}
	if !slices.Equal(a.Grants(), []int64{456, 123}) {
		t.Fatalf("the owner is granted once: %v", a.Grants())
	}
}

func TestSchedule(t *testing.T) {
	var total time.Duration
	for _, d := range webhooks.DefaultDelays {
		total += d
	}
	if len(webhooks.DefaultDelays) != apps.RetrySteps || total != time.Hour || webhooks.MaxAttempts != 8 {
		t.Fatalf("default schedule: %d delays over %s", len(webhooks.DefaultDelays), total)
	}
	a := apps.Application{AckTimeoutMS: 250}
	if !slices.Equal(a.Delays(), webhooks.DefaultDelays) || a.AckTimeout() != 250*time.Millisecond {
		t.Fatalf("default delays %v, ack %s", a.Delays(), a.AckTimeout())
	}
	a.RetryDelaysMS = []int64{100, 200, 300, 400, 500, 600, 700}
	if d := a.Delays(); len(d) != 7 || d[0] != 100*time.Millisecond || d[6] != 700*time.Millisecond {
		t.Fatalf("own delays %v", d)
	}
}
