package contactsapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// The item's seller answers a buyer's question once; the question reads
// ANSWERED with its answer, in its GET and in the seller's search.
func TestAnswers(t *testing.T) {
	for _, be := range apptest.Both {
		t.Run(be.Name, func(t *testing.T) {
			a := world(t, be)
			buyer, seller := apptest.Bearer(buyerToken), apptest.Bearer(sellerToken)
			r := a.Do("POST", "/questions", map[string]string{"item_id": "MLA1", "text": "¿Tiene garantía?"}, buyer...)
			var q struct{ ID int64 }
			r.JSON(t, &q)
			answered := fmt.Sprintf(`{"id":%d,"item_id":"MLA1","seller_id":7,"from":{"id":9},"text":"¿Tiene garantía?","status":"ANSWERED","date_created":"2026-11-20T12:00:00Z",
				"answer":{"text":"Sí, 12 meses.","status":"ACTIVE","date_created":"2026-11-20T12:00:00Z"}}`, q.ID)
			body := func(text string) string { return fmt.Sprintf(`{"question_id":%d,"text":%q}`, q.ID, text) }

			a.Do("POST", "/answers", body("Sí"), buyer...).Is(t, 403, apptest.Err(403, "forbidden", fmt.Sprintf("only the seller of item MLA1 may answer question %d", q.ID)))
			a.Do("POST", "/answers", body("Sí")).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
			a.Do("POST", "/answers", body("   "), seller...).Is(t, 400, apptest.Err(400, "bad_request", "text is required: the answer must not be empty"))
			a.Do("POST", "/answers", body(strings.Repeat("a", 2001)), seller...).Is(t, 400, apptest.Err(400, "bad_request", "text is 2001 characters long; at most 2000 are allowed"))
			a.Do("POST", "/answers", `{"question_id":424242,"text":"Sí"}`, seller...).Is(t, 404, apptest.Err(404, "not_found", "question not found"))
			a.Do("POST", "/answers", `{"text":"Sí"}`, seller...).Is(t, 400,
				`{"message":"question_id must be a positive integer","error":"bad_request","status":400,"cause":[{"code":"question_id","message":"question_id must be a positive integer"}]}`)

			a.Do("POST", "/answers", body("  Sí, 12 meses.  "), seller...).Is(t, 200, answered)
			a.Do("POST", "/answers", body("Otra"), seller...).Is(t, 400, apptest.Err(400, "bad_request", fmt.Sprintf("question %d was already answered", q.ID)))
			a.Do("GET", fmt.Sprintf("/questions/%d", q.ID), nil, buyer...).Is(t, 200, answered)
			a.Do("GET", "/questions/search?item_id=MLA1", nil, seller...).Is(t, 200, `{"total":1,"limit":50,"questions":[`+answered+`],"paging":{"total":1,"offset":0,"limit":50}}`)
		})
	}
}
