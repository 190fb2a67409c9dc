package adminapi_test

import (
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/app"
	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/test/testenv"
	"github.com/feria/feria/workers/tasks"
)

func basic(user, pass string) []string {
	return []string{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))}
}

func TestDashboard(t *testing.T) {
	a := apptest.New(t, apptest.Real) // AdminKey "test-admin-key"
	for _, q := range []string{tasks.QueueDefault, tasks.QueueBulk} {
		if _, err := a.Deps.Queue.Enqueue(asynq.NewTask("test:noop", nil), asynq.Queue(q)); err != nil {
			t.Fatal(err)
		}
	}
	unauth := `{"message":"admin credentials required","error":"unauthorized","status":401,"cause":[]}`
	for _, path := range []string{"/admin/jobs", "/admin/jobs/", "/admin/jobs/queues/default", "/admin/jobs/api/queues", "/admin/jobs/api/queues/default/pending_tasks"} {
		for _, h := range [][]string{nil, basic("admin", "wrong"), basic("root", "test-admin-key"), {"Authorization", "Bearer test-admin-key"}} {
			r := a.Do("GET", path, nil, h...)
			if r.Status != 401 || string(r.Body) != unauth || r.Header.Get("WWW-Authenticate") == "" {
				t.Fatalf("GET %s with %v: %d %s", path, h, r.Status, r.Body)
			}
		}
		if r := a.Do("DELETE", path, nil); r.Status != 401 {
			t.Fatalf("DELETE %s: %d", path, r.Status)
		}
	}
	ok := basic("admin", "test-admin-key")
	if r := a.Do("GET", "/admin/jobs/", nil, ok...); r.Status != 200 || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("dashboard page: %d %v", r.Status, r.Header)
	}
	r := a.Do("GET", "/admin/jobs/api/queues", nil, ok...)
	var ans struct {
		Queues []struct {
			Queue string `json:"queue"`
		} `json:"queues"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &ans) != nil {
		t.Fatalf("queues: %d %s", r.Status, r.Body)
	}
	names := map[string]bool{}
	for _, q := range ans.Queues {
		names[q.Queue] = true
	}
	if !names["default"] || !names["bulk"] {
		t.Fatalf("queues shown: %s", r.Body)
	}
}

// Without ADMIN_KEY the dashboard is not served at all: 404 as any unknown path.
func TestDisabledWithoutKey(t *testing.T) {
	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := fsblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	in, err := app.NewInstance(cfg, slog.New(slog.DiscardHandler), testenv.SQLite(t), testenv.Miniredis(t), blobs)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	for _, path := range []string{"/admin/jobs", "/admin/jobs/api/queues"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", basic("admin", "")[1])
		res, err := in.HTTP.Test(req)
		if err != nil || res.StatusCode != 404 {
			t.Fatalf("%s: %v %v", path, res.StatusCode, err)
		}
	}
}
