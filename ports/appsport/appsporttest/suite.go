package appsporttest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/feria/feria/core/apps"
	"github.com/feria/feria/ports/appsport"
)

// Env is a store under test and a way to add the users its applications
// name (a database checks them).
type Env struct {
	Store   appsport.Store
	AddUser func(ctx context.Context, id int64)
}

// TestStore is the contract of appsport.Store.
func TestStore(t *testing.T, newEnv func(t testing.TB) Env) {
	ctx := context.Background()
	newStore := func(t testing.TB) appsport.Store {
		e := newEnv(t)
		for _, u := range []int64{123, 124, 456} {
			e.AddUser(ctx, u)
		}
		return e.Store
	}
	app := apps.Application{ID: 789, Name: "my-integration", OwnerID: 123, ClientSecret: "app-secret",
		CallbackURL: "http://127.0.0.1:9999/notifications", Topics: []string{"orders_v2", "items"},
		Users: []int64{456}, AckTimeoutMS: 500}

	t.Run("put and read back", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Application(ctx, 789); !errors.Is(err, appsport.ErrNotFound) {
			t.Fatalf("missing application: %v", err)
		}
		if err := s.Upsert(ctx, app); err != nil {
			t.Fatal(err)
		}
		got, err := s.Application(ctx, 789)
		if err != nil || !reflect.DeepEqual(got, app) {
			t.Fatalf("got %+v %v, want %+v", got, err, app)
		}
		changed := app
		changed.Name, changed.Topics, changed.Users, changed.RetryDelaysMS = "renamed", []string{"questions"}, []int64{}, []int64{1, 2, 3, 4, 5, 6, 7}
		changed.RedirectURIs = []string{"https://app.example/cb", "http://localhost:3000/cb?x=1"}
		if err := s.Upsert(ctx, changed); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Application(ctx, 789); err != nil || !reflect.DeepEqual(got, changed) {
			t.Fatalf("after a change: %+v %v, want %+v", got, err, changed)
		}
		changed.RedirectURIs = []string{"https://app.example/other"}
		if err := s.Upsert(ctx, changed); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Application(ctx, 789); err != nil || !reflect.DeepEqual(got.RedirectURIs, changed.RedirectURIs) {
			t.Fatalf("redirect URIs are replaced: %+v %v", got.RedirectURIs, err)
		}
	})

	t.Run("grant: an approved user joins the users, once", func(t *testing.T) {
		s := newStore(t)
		if err := s.Upsert(ctx, app); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := s.Grant(ctx, 789, 124); err != nil {
				t.Fatal(err)
			}
		}
		// The owner and a listed user are granted already.
		for _, u := range []int64{123, 456} {
			if err := s.Grant(ctx, 789, u); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Application(ctx, 789)
		if err != nil || !reflect.DeepEqual(got.Users, []int64{456, 124}) {
			t.Fatalf("users after grants: %v %v", got.Users, err)
		}
		subs, err := s.Subscribers(ctx, "items", 124)
		if err != nil || len(subs) != 1 || subs[0].ID != 789 {
			t.Errorf("a granted user is subscribed: %+v %v", subs, err)
		}
		if err := s.Grant(ctx, 790, 124); !errors.Is(err, appsport.ErrNotFound) {
			t.Errorf("grant of an unknown application: %v", err)
		}
	})

	t.Run("subscribers: the topic and a grant, the owner granted", func(t *testing.T) {
		s := newStore(t)
		other := app
		other.ID, other.OwnerID, other.Topics, other.Users = 790, 124, []string{"items"}, []int64{123}
		third := app
		third.ID, third.Topics = 700, []string{"questions"}
		for _, a := range []apps.Application{other, app, third} {
			if err := s.Upsert(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(topic string, user int64) []int64 {
			t.Helper()
			got, err := s.Subscribers(ctx, topic, user)
			if err != nil {
				t.Fatal(err)
			}
			out := []int64{}
			for _, a := range got {
				out = append(out, a.ID)
			}
			return out
		}
		for _, c := range []struct {
			topic string
			user  int64
			want  []int64
		}{
			{"items", 123, []int64{789, 790}}, // 789's owner, granted by 790
			{"items", 456, []int64{789}},
			{"items", 124, []int64{790}},
			{"orders_v2", 124, []int64{}},
			{"questions", 456, []int64{700}},
			{"shipments", 123, []int64{}},
			{"items", 999, []int64{}},
		} {
			if got := ids(c.topic, c.user); !reflect.DeepEqual(got, c.want) {
				t.Errorf("subscribers of %s for %d: %v, want %v", c.topic, c.user, got, c.want)
			}
		}
		// A change replaces topics and grants.
		app2 := app
		app2.Topics, app2.Users = []string{"shipments"}, []int64{}
		if err := s.Upsert(ctx, app2); err != nil {
			t.Fatal(err)
		}
		if got := ids("items", 456); len(got) != 0 {
			t.Errorf("old grant still subscribed: %v", got)
		}
		if got := ids("shipments", 123); !reflect.DeepEqual(got, []int64{789}) {
			t.Errorf("new topic: %v", got)
		}
	})
}
