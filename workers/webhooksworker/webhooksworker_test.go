package webhooksworker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/webhooksport"
	"github.com/feria/feria/workers/webhooksworker"
)

type jobs struct {
	got []string
	err error
}

func (j *jobs) Deliver(_ context.Context, id string) error {
	j.got = append(j.got, id)
	return j.err
}

func TestHandler(t *testing.T) {
	j := &jobs{}
	h := webhooksworker.Handler{Jobs: j}
	task := asynq.NewTask(webhooksport.TaskDeliver, []byte(`{"id":"n1"}`))
	if err := h.ProcessTask(context.Background(), task); err != nil || len(j.got) != 1 || j.got[0] != "n1" {
		t.Fatalf("err %v, got %v", err, j.got)
	}
	// The next attempt's delay goes back to asynq as is.
	j.err = &webhooksport.Later{In: 3 * time.Second, Reason: "attempt 1 failed"}
	var later *webhooksport.Later
	if err := h.ProcessTask(context.Background(), task); !errors.As(err, &later) || later.RetryIn() != 3*time.Second || errors.Is(err, asynq.SkipRetry) {
		t.Fatalf("later: %v", err)
	}
	for _, bad := range []string{`{`, `{"id":""}`, `[]`} {
		if err := h.ProcessTask(context.Background(), asynq.NewTask(webhooksport.TaskDeliver, []byte(bad))); !errors.Is(err, asynq.SkipRetry) {
			t.Errorf("payload %s: %v, want SkipRetry", bad, err)
		}
	}
	if len(j.got) != 2 {
		t.Fatalf("bad payloads reached the use case: %v", j.got)
	}
}
