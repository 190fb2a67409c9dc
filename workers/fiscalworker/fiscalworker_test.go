package fiscalworker_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/workers/fiscalworker"
)

type jobs struct {
	got    []fiscalport.Notice
	before []time.Time
	err    error
}

func (j *jobs) NotifyBuyer(_ context.Context, n fiscalport.Notice) error {
	j.got = append(j.got, n)
	return j.err
}

func (j *jobs) SweepOrphans(_ context.Context, before time.Time) (int, error) {
	j.before = append(j.before, before)
	return 0, j.err
}

// The janitor's task: files older than the payload's grace (an hour when
// none) go; a bad payload is archived.
func TestSweeper(t *testing.T) {
	j := &jobs{}
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	h := fiscalworker.Sweeper{Jobs: j, Now: func() time.Time { return now }}
	for _, tc := range []struct {
		payload string
		want    time.Time
	}{{"", now.Add(-fiscalport.OrphanGrace)}, {`{"grace_seconds":60}`, now.Add(-time.Minute)}} {
		j.before = nil
		if err := h.ProcessTask(context.Background(), asynq.NewTask(fiscalport.TaskSweepOrphans, []byte(tc.payload))); err != nil || len(j.before) != 1 || !j.before[0].Equal(tc.want) {
			t.Fatalf("payload %q: %v, before %v; want %v", tc.payload, err, j.before, tc.want)
		}
	}
	if err := h.ProcessTask(context.Background(), asynq.NewTask(fiscalport.TaskSweepOrphans, []byte(`{"grace_seconds":-1}`))); !errors.Is(err, asynq.SkipRetry) {
		t.Fatalf("bad payload: %v", err)
	}
}

func TestHandler(t *testing.T) {
	j := &jobs{}
	h := fiscalworker.Handler{Jobs: j}
	n := fiscalport.Notice{ID: "n1", Kind: "fiscal_document_uploaded", PackID: 7, BuyerID: 20, SellerID: 10, DocumentIDs: []string{"10_x"}}
	payload, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	task := asynq.NewTask(fiscalport.TaskDocumentUploaded, payload)
	if err := h.ProcessTask(context.Background(), task); err != nil || len(j.got) != 1 || j.got[0].ID != "n1" || j.got[0].DocumentIDs[0] != "10_x" {
		t.Fatalf("err %v, got %+v", err, j.got)
	}
	// A failing notification is returned as is: asynq retries it with backoff.
	j.err = errors.New("smtp down")
	if err := h.ProcessTask(context.Background(), task); !errors.Is(err, j.err) || errors.Is(err, asynq.SkipRetry) {
		t.Fatalf("failure: %v", err)
	}
	for _, payload := range []string{"", "{", `{"id": 5}`, `{"id": "x"}`, `{"id":"x","kind":"k","pack_id":0,"buyer_id":1}`} {
		err := h.ProcessTask(context.Background(), asynq.NewTask(fiscalport.TaskBillingRequested, []byte(payload)))
		if !errors.Is(err, asynq.SkipRetry) {
			t.Errorf("payload %q: %v, want SkipRetry", payload, err)
		}
	}
	if len(j.got) != 2 {
		t.Fatalf("bad payloads reached the module: %+v", j.got)
	}
}

func TestRegister(t *testing.T) {
	var types []string
	fiscalworker.Register(func(tp string, _ asynq.Handler) { types = append(types, tp) }, &jobs{})
	if len(types) != 3 || types[0] != fiscalport.TaskDocumentUploaded || types[1] != fiscalport.TaskBillingRequested || types[2] != fiscalport.TaskSweepOrphans {
		t.Fatalf("registered %v", types)
	}
}
