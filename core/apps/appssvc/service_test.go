package appssvc_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/apps"
	"github.com/feria/feria/core/apps/appssvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/accountport/accountporttest"
	"github.com/feria/feria/ports/appsport/appsporttest"
)

func setup() (*appssvc.Service, accountporttest.Users) {
	users := accountporttest.NewUsers(account.User{ID: 123}, account.User{ID: 456})
	return appssvc.New(appssvc.Deps{Store: appsporttest.NewMemory(), Users: users}), users
}

func TestPut(t *testing.T) {
	ctx := context.Background()
	svc, users := setup()
	in := apps.Application{ID: 789, Name: "n", OwnerID: 123, ClientSecret: "s", CallbackURL: "http://127.0.0.1:9/cb",
		Topics: []string{"items"}, Users: []int64{456, 456}}
	got, err := svc.Put(ctx, in)
	want := in.WithDefaults()
	if err != nil || !reflect.DeepEqual(got, want) || want.AckTimeoutMS != 500 || len(want.Users) != 1 {
		t.Fatalf("put: %+v %v, want %+v", got, err, want)
	}
	if read, err := svc.Application(ctx, 789); err != nil || !reflect.DeepEqual(read, want) {
		t.Fatalf("read: %+v %v", read, err)
	}
	if _, err := svc.Application(ctx, 1); !errors.Is(err, apps.ErrApplicationNotFound) {
		t.Fatalf("unknown: %v", err)
	}

	// Unknown owner and users are named, every one.
	bad := in
	bad.OwnerID, bad.Users = 999, []int64{456, 998}
	_, err = svc.Put(ctx, bad)
	var e *kernel.Error
	if !errors.As(err, &e) || !errors.Is(err, apps.ErrInvalidApplication) || len(e.Causes) != 2 ||
		e.Causes[0] != (kernel.Cause{Code: "owner_id", Message: "user 999 does not exist"}) ||
		e.Causes[1] != (kernel.Cause{Code: "users[1]", Message: "user 998 does not exist"}) {
		t.Fatalf("unknown users: %+v", err)
	}
	// A rule broken is refused before any user is read; a user store that
	// is down is its error, not a 400.
	down := errors.New("database down")
	users.Down[456] = down
	if _, err := svc.Put(ctx, in); !errors.Is(err, down) {
		t.Fatalf("users down: %v", err)
	}
	bad = in
	bad.CallbackURL = "mailto:x"
	if _, err := svc.Put(ctx, bad); !errors.Is(err, apps.ErrInvalidApplication) {
		t.Fatalf("invalid: %v", err)
	}
}

func TestClientAndSubscribers(t *testing.T) {
	ctx := context.Background()
	svc, _ := setup()
	if _, err := svc.Put(ctx, apps.Application{ID: 789, Name: "n", OwnerID: 123, ClientSecret: "s3", CallbackURL: "https://h/cb",
		Topics: []string{"items", "questions"}, Users: []int64{456}, RedirectURIs: []string{"https://h/oauth"}}); err != nil {
		t.Fatal(err)
	}
	want := account.Client{AppID: 789, Secret: "s3", Name: "n", OwnerID: 123, RedirectURIs: []string{"https://h/oauth"}}
	if c, err := svc.Client(ctx, 789); err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("client: %+v %v", c, err)
	}
	if _, err := svc.Client(ctx, 7); !errors.Is(err, accountport.ErrNotFound) {
		t.Fatalf("unknown client: %v", err)
	}
	// An approval grants the application; an unknown one is not found.
	if err := svc.Grant(ctx, 789, 124); err != nil {
		t.Fatal(err)
	}
	if a, err := svc.Application(ctx, 789); err != nil || !reflect.DeepEqual(a.Users, []int64{456, 124}) {
		t.Fatalf("granted: %+v %v", a.Users, err)
	}
	if err := svc.Grant(ctx, 7, 124); !errors.Is(err, accountport.ErrNotFound) {
		t.Fatalf("grant of an unknown application: %v", err)
	}
	for _, c := range []struct {
		topic string
		user  int64
		n     int
	}{{"items", 123, 1}, {"questions", 456, 1}, {"orders_v2", 456, 0}, {"items", 999, 0}} {
		if got, err := svc.Subscribers(ctx, c.topic, c.user); err != nil || len(got) != c.n {
			t.Errorf("subscribers %s %d: %v %v", c.topic, c.user, got, err)
		}
	}
}
