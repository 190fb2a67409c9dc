package adminapi_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/workers/tasks"
)

func basic(user, pass string) []string {
	return []string{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))}
}

func TestDashboard(t *testing.T) {
	// A fresh install: no job was ever enqueued.
	a := apptest.New(t, apptest.Real) // AdminKey "test-admin-key"
	unauth := `{"message":"admin credentials required","error":"unauthorized","status":401,"cause":[]}`
	for _, path := range []string{"/admin/jobs", "/admin/jobs/", "/admin/jobs/queues/default", "/admin/jobs/api/queues", "/admin/jobs/api/queues/default/pending_tasks"} {
		for _, h := range [][]string{nil, basic("admin", "wrong"), basic("root", "test-admin-key"), {"Authorization", "Bearer test-admin-key"}} {
			r := a.Do("GET", path, nil, h...)
			r.HasStatus(t, 401)
			if string(r.Body) != unauth || r.Header.Get("WWW-Authenticate") == "" {
				t.Fatalf("GET %s with %v: %d %s", path, h, r.Status, r.Body)
			}
		}
		a.Do("DELETE", path, nil).HasStatus(t, 401)
	}
	ok := basic("admin", "test-admin-key")
	if r := a.Do("GET", "/admin/jobs/", nil, ok...).HasStatus(t, 200); r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("dashboard page: %d %v", r.Status, r.Header)
	}
	r := a.Do("GET", "/admin/jobs/api/queues", nil, ok...)
	var ans struct {
		Queues []struct {
			Queue string `json:"queue"`
		} `json:"queues"`
	}
	r.HasStatus(t, 200)
	if json.Unmarshal(r.Body, &ans) != nil {
		t.Fatalf("queues: %d %s", r.Status, r.Body)
	}
	names := map[string]bool{}
	for _, q := range ans.Queues {
		names[q.Queue] = true
	}
	if !names["default"] || !names["bulk"] {
		t.Fatalf("queues shown before any job: %s", r.Body)
	}
}

// A job that fails for good ends archived, and the dashboard's API shows it
// with its error: one whose payload can never decode (archived at once, no
// retry) and one whose retries are spent.
func TestFailedJobsStayVisible(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		bad, err := a.Deps.Queue.Enqueue(asynq.NewTask(fiscalport.TaskBillingRequested, []byte("{")),
			asynq.Queue(tasks.QueueDefault), asynq.TaskID("bad-payload"), asynq.MaxRetry(10))
		if err != nil {
			t.Fatal(err)
		}
		spent, err := a.Deps.Queue.Enqueue(asynq.NewTask("test:no-handler", nil),
			asynq.Queue(tasks.QueueBulk), asynq.TaskID("retries-spent"), asynq.MaxRetry(0))
		if err != nil {
			t.Fatal(err)
		}
		a.StartWorkers()
		ok := basic("admin", "test-admin-key")
		for _, c := range []struct{ queue, id, errPart string }{
			{bad.Queue, bad.ID, "payload"},
			{spent.Queue, spent.ID, "test:no-handler"},
		} {
			var ans struct {
				Tasks []struct {
					ID           string `json:"id"`
					Type         string `json:"type"`
					ErrorMessage string `json:"error_message"`
					Retried      int    `json:"retried"`
				} `json:"tasks"`
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				r := a.Do("GET", "/admin/jobs/api/queues/"+c.queue+"/archived_tasks", nil, ok...)
				r.HasStatus(t, 200)
				r.JSON(t, &ans)
				if len(ans.Tasks) > 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if len(ans.Tasks) != 1 || ans.Tasks[0].ID != c.id || !strings.Contains(ans.Tasks[0].ErrorMessage, c.errPart) || ans.Tasks[0].Retried != 0 {
				t.Fatalf("archived in %s: %+v", c.queue, ans.Tasks)
			}
		}
		// The queue summary counts them too.
		r := a.Do("GET", "/admin/jobs/api/queues", nil, ok...)
		var qs struct {
			Queues []struct {
				Queue    string `json:"queue"`
				Archived int    `json:"archived"`
			} `json:"queues"`
		}
		r.JSON(t, &qs)
		archived := map[string]int{}
		for _, q := range qs.Queues {
			archived[q.Queue] = q.Archived
		}
		if archived["default"] != 1 || archived["bulk"] != 1 {
			t.Fatalf("queues: %s", r.Body)
		}
	})
}

// Without ADMIN_KEY the dashboard is not served at all: 404 as any unknown path.
func TestDisabledWithoutKey(t *testing.T) {
	a := apptest.NewConfigured(t, apptest.Embedded, func(c *apptest.Config) { c.AdminKey = "" })
	for _, path := range []string{"/admin/jobs", "/admin/jobs/api/queues"} {
		a.Do("GET", path, nil, basic("admin", "")...).HasStatus(t, 404)
	}
}
