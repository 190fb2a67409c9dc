package worldsapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/workers/tasks"
)

// burst is how many copies world a queues at once.
const burst = 2000

// One world's burst of jobs does not starve another world's: world a
// queues 2,000 compatibility copies at once, then world b asks for one;
// b's copy is done before half of a's burst has run (in one queue for
// every world, it ran after all of them: 8.5 s). asynq on a real
// Redis, its workers and the worlds' relays as a worker process runs them
// (the files play no part: the filesystem).
func TestWorldBurstDoesNotStarveAnother(t *testing.T) {
	a := apptest.New(t, apptest.Backend{Name: "postgres+redis", SQL: "postgres", Redis: "redis", Blobs: "filesystem"})
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "deploy", "demo", "fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	compats, err := os.ReadFile(filepath.Join("..", "..", "..", "deploy", "demo", "compatibilities.json"))
	if err != nil {
		t.Fatal(err)
	}
	seller := apptest.Bearer("APP_USR-demo-seller")
	wa, wb := client{a: a, name: "a", key: keyA}, client{a: a, name: "b", key: keyB}
	for _, w := range []client{wa, wb} {
		a.Sandbox("PUT", "/worlds/"+w.name, map[string]any{"sandbox_key": w.key}).OK(t, 201)
		w.sandbox("POST", "/fixtures", json.RawMessage(raw)).OK(t, 200)
		w.do("POST", "/items/MLA1100/compatibilities", json.RawMessage(compats), seller...).OK(t, 200)
	}
	queue := tasks.WorldQueue("a", tasks.QueueBulk)
	if queue == tasks.WorldQueue("b", tasks.QueueBulk) {
		t.Fatalf("worlds a and b share the lane %s", queue)
	}
	// World a's burst: what its relay queues for 2,000 copy requests.
	ctx := context.Background()
	for i := range burst {
		id := fmt.Sprintf("copy-burst-%d", i)
		payload, _ := json.Marshal(compatport.CopyJob{ID: id, ItemID: "MLA1101", SourceID: "MLA1100"})
		if _, err := a.Deps.Queue.EnqueueContext(ctx, asynq.NewTask(compatport.TaskCopy, payload),
			asynq.TaskID(tasks.WorldTaskID("a", id)), asynq.Queue(queue), asynq.MaxRetry(10)); err != nil {
			t.Fatal(err)
		}
	}
	a.StartWorkers()
	start := time.Now()
	count := func(w client, item string) float64 {
		var v struct {
			Count float64 `json:"catalog_compatibilities_count"`
		}
		w.do("GET", "/items/"+item+"/compatibilities", nil, seller...).JSON(t, &v)
		return v.Count
	}
	want := count(wb, "MLA1100")
	wb.do("POST", "/items/MLA1101/compatibilities", map[string]any{"item_to_copy": map[string]any{"item_id": "MLA1100"}}, seller...).HasStatus(t, 200)
	left := func() int {
		info, err := a.Deps.Inspect.GetQueueInfo(queue)
		if err != nil {
			t.Fatal(err)
		}
		return info.Pending + info.Active + info.Retry
	}
	for count(wb, "MLA1101") != want {
		if time.Since(start) > time.Minute {
			t.Fatalf("after %s, world b's copy is not done; %d of world a's copies left", time.Since(start), left())
		}
		time.Sleep(20 * time.Millisecond)
	}
	took, queued := time.Since(start), left()
	t.Logf("world b's one copy done after %s, with %d of world a's %d copies left", took, queued, burst)
	if queued < burst/2 {
		t.Errorf("world b's copy done after %s, once %d of world a's %d copies had run: want it done before half of them", took, burst-queued, burst)
	}
}
