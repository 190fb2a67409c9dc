package docs

import (
	"encoding/json"
	"testing"
)

// The demo world's fixed tokens live a year, so that `make run` stays
// usable long after its world was loaded.
func TestDemoTokensLastAYear(t *testing.T) {
	var world struct {
		Users []struct {
			ID          int64  `json:"id"`
			AccessToken string `json:"access_token"`
			ExpiresIn   int64  `json:"expires_in"`
		} `json:"users"`
	}
	if err := json.Unmarshal([]byte(readFile(t, "deploy/demo/fixtures.json")), &world); err != nil {
		t.Fatal(err)
	}
	if len(world.Users) == 0 {
		t.Fatal("deploy/demo/fixtures.json has no users")
	}
	for _, u := range world.Users {
		if u.AccessToken == "" || u.ExpiresIn != 365*24*3600 {
			t.Errorf("demo user %d: token %q, expires_in %d; want a fixed token of a year (31536000)", u.ID, u.AccessToken, u.ExpiresIn)
		}
	}
}
