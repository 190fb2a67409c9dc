package fiscalworker_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/workers/fiscalworker"
)

type jobs struct {
	got []fiscalport.Notice
	err error
}

func (j *jobs) NotifyBuyer(_ context.Context, n fiscalport.Notice) error {
	j.got = append(j.got, n)
	return j.err
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
	if len(types) != 2 || types[0] != fiscalport.TaskDocumentUploaded || types[1] != fiscalport.TaskBillingRequested {
		t.Fatalf("registered %v", types)
	}
}
