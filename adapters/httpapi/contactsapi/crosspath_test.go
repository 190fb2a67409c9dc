package contactsapi_test

import (
	"fmt"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// A question asked through POST /questions is counted once under the id
// question-<id>; the sandbox cannot take that id, neither before the
// question (which would leave the question uncounted) nor after it (which
// would count it again).
func TestQuestionIDsAcrossPaths(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		reserved := `{"message":"events[0].id: ids starting with \"question-\" are reserved for questions asked through POST /questions","error":"bad_request","status":400,
				"cause":[{"code":"events[0].id","message":"ids starting with \"question-\" are reserved for questions asked through POST /questions"}]}`
		// Before any question: the id the next question will take is refused.
		for _, id := range []string{"question-1", "question-2", "question-x"} {
			r := a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{
				{"id": id, "item_id": "MLA1", "type": "question", "date": "2026-11-20T12:00:00Z"}}})
			r.Is(t, 400, reserved)
		}
		if n := total(t, a, "/items/MLA1/contacts/questions"); n != 2 {
			t.Fatalf("a refused event counted: MLA1 questions = %d, want 2", n)
		}
		r := a.Do("POST", "/questions", map[string]string{"item_id": "MLA1", "text": "¿Sigue disponible?"}, apptest.Bearer(buyerToken)...)
		var q struct{ ID int64 }
		r.JSON(t, &q)
		r.HasStatus(t, 201)
		if n := total(t, a, "/items/MLA1/contacts/questions"); n != 3 {
			t.Errorf("the question was not counted: MLA1 questions = %d, want 3", n)
		}
		// After it: the same id again, in a batch or one by one, is refused
		// and the question stays counted once.
		id := fmt.Sprintf("question-%d", q.ID)
		r = a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{
			{"id": id, "item_id": "MLA1", "type": "question", "date": "2026-11-20T12:00:00Z"}}})
		r.Is(t, 400, reserved)
		r = a.Sandbox("PUT", "/contact_events/"+id, map[string]string{"item_id": "MLA1", "type": "question", "date": "2026-11-20T12:00:00Z"})
		r.Is(t, 400, `{"message":"id: ids starting with \"question-\" are reserved for questions asked through POST /questions","error":"bad_request","status":400,
				"cause":[{"code":"id","message":"ids starting with \"question-\" are reserved for questions asked through POST /questions"}]}`)
		// Ordinary ids keep their own namespace: the same event sent
		// twice, once alone and once beside a new question, counts once.
		ev := map[string]string{"id": "buyer-msg-1", "item_id": "MLA1", "type": "question", "date": "2026-11-20T12:00:00Z"}
		a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{ev}}).Is(t, 200, `{"accepted":1,"duplicates":0}`)
		a.Do("POST", "/questions", map[string]string{"item_id": "MLA1", "text": "¿Envío?"}, apptest.Bearer(buyerToken)...).HasStatus(t, 201)
		a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{ev, ev}}).Is(t, 200, `{"accepted":0,"duplicates":2}`)
		if n := total(t, a, "/items/MLA1/contacts/questions"); n != 5 {
			t.Errorf("MLA1 questions = %d, want 5 (2 events, 2 questions asked, 1 event sent three times)", n)
		}
		if n := total(t, a, "/users/7/contacts/questions"); n != 6 {
			t.Errorf("seller 7 questions = %d, want 6 (MLA1's 5 + MLA2's 1)", n)
		}
	})
}
