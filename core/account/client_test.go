package account_test

import (
	"errors"
	"testing"

	"github.com/feria/feria/core/account"
)

func TestCheckClient(t *testing.T) {
	app := account.Client{AppID: 789, Secret: "app-secret"}
	tests := []struct {
		name             string
		tokenApp         int64
		clientID, secret string
		ok               bool
	}{
		{"no application: any client", 0, "whatever", "x", true},
		{"no application: no client", 0, "", "", true},
		{"the application's client", 789, "789", "app-secret", true},
		{"wrong secret", 789, "789", "app-secreT", false},
		{"no secret", 789, "789", "", false},
		{"another id", 789, "790", "app-secret", false},
		{"id with a leading zero", 789, "0789", "app-secret", false},
		{"no id", 789, "", "app-secret", false},
		{"a client of another application", 790, "790", "app-secret", false},
	}
	for _, tt := range tests {
		err := account.CheckClient(tt.tokenApp, tt.clientID, tt.secret, app)
		if tt.ok != (err == nil) || (err != nil && !errors.Is(err, account.ErrInvalidClient)) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
