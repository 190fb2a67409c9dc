package contactsapi

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/contactsport"
)

// questionJSON is a question as the buyer and the seller see it.
type questionJSON struct {
	ID          int64    `json:"id"`
	ItemID      string   `json:"item_id"`
	SellerID    int64    `json:"seller_id"`
	From        fromJSON `json:"from"`
	Text        string   `json:"text"`
	Status      string   `json:"status"`
	DateCreated string   `json:"date_created"`
	// Answer is null until the seller answers.
	Answer *answerJSON `json:"answer"`
}

type answerJSON struct {
	Text        string `json:"text"`
	Status      string `json:"status"`
	DateCreated string `json:"date_created"`
}

type fromJSON struct {
	ID int64 `json:"id"`
}

func questionOut(q contacts.AskedQuestion) questionJSON {
	out := questionJSON{ID: q.ID, ItemID: q.ItemID, SellerID: q.SellerID, From: fromJSON{ID: q.FromID},
		Text: q.Text, Status: q.Status, DateCreated: contacts.FormatDate(q.DateCreated)}
	if a := q.Answer; a != nil {
		out.Answer = &answerJSON{Text: a.Text, Status: a.Status, DateCreated: contacts.FormatDate(a.DateCreated)}
	}
	return out
}

// answer serves POST /answers {question_id, text} for the item's seller:
// the question answered, as GET /questions/{id} shows it now.
func (h handlers) answer(c *fiber.Ctx) error {
	var body struct {
		QuestionID int64  `json:"question_id"`
		Text       string `json:"text"`
	}
	if err := httpapi.BindJSON(c, &body); err != nil {
		return err
	}
	q, err := h.svc.AnswerQuestion(c.UserContext(), body.QuestionID, body.Text)
	if err != nil {
		return err
	}
	return c.JSON(questionOut(q))
}

// ask serves POST /questions {item_id, text} for a buyer.
func (h handlers) ask(c *fiber.Ctx) error {
	var body struct {
		ItemID string `json:"item_id"`
		Text   string `json:"text"`
	}
	if err := httpapi.BindJSON(c, &body); err != nil {
		return err
	}
	q, err := h.svc.Ask(c.UserContext(), body.ItemID, body.Text)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(questionOut(q))
}

// search serves GET /questions/search for the caller as a seller: of an
// item (item, or item_id) and/or of seller_id (the caller), of one status
// when asked. The answer carries total and limit at the top level, as the
// marketplace documents it, and the platform's paging object.
func (h handlers) search(c *fiber.Ctx) error {
	p, err := httpapi.Paging(c)
	if err != nil {
		return err
	}
	item, itemID := httpapi.Query(c, "item"), httpapi.Query(c, "item_id")
	switch {
	case item == "":
		item = itemID
	case itemID != "" && itemID != item:
		return contacts.ErrBadRequest.Withf("item %s and item_id %s name different items; send one of them", item, itemID)
	}
	in := contactsport.QuestionSearch{Item: item, SellerID: httpapi.Query(c, "seller_id"), Status: httpapi.Query(c, "status")}
	qs, page, err := h.svc.Questions(c.UserContext(), in, p)
	if err != nil {
		return err
	}
	out := struct {
		Total     int            `json:"total"`
		Limit     int            `json:"limit"`
		Questions []questionJSON `json:"questions"`
		Paging    paging.Page    `json:"paging"`
	}{Total: page.Total, Limit: page.Limit, Questions: make([]questionJSON, len(qs)), Paging: page}
	for i, q := range qs {
		out.Questions[i] = questionOut(q)
	}
	return c.JSON(out)
}

// remove serves DELETE /questions/{question_id} for the item's seller.
func (h handlers) remove(c *fiber.Ctx) error {
	id, err := httpapi.PositiveID("question_id", c.Params("question_id"))
	if err != nil {
		return err
	}
	if err := h.svc.DeleteQuestion(c.UserContext(), id); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"message": "question " + strconv.FormatInt(id, 10) + " deleted"})
}

// timeJSON is one bucket of a response time; feria does not estimate the
// marketplace's sales increase, always null.
type timeJSON struct {
	ResponseTime         *int64 `json:"response_time"`
	SalesPercentIncrease *int64 `json:"sales_percent_increase"`
}

// responseTime serves GET /users/{user_id}/questions/response_time, in
// minutes, for the user themself.
func (h handlers) responseTime(c *fiber.Ctx) error {
	rt, err := h.svc.ResponseTime(c.UserContext(), c.Params("user_id"))
	if err != nil {
		return err
	}
	return c.JSON(struct {
		UserID int64 `json:"user_id"`
		Total  struct {
			ResponseTime *int64 `json:"response_time"`
		} `json:"total"`
		Weekend    timeJSON `json:"weekend"`
		Working    timeJSON `json:"weekdays_working_hours"`
		ExtraHours timeJSON `json:"weekdays_extra_hours"`
	}{UserID: rt.UserID, Total: struct {
		ResponseTime *int64 `json:"response_time"`
	}{rt.Total}, Weekend: timeJSON{ResponseTime: rt.Weekend}, Working: timeJSON{ResponseTime: rt.WorkingHours},
		ExtraHours: timeJSON{ResponseTime: rt.ExtraHours}})
}

// question serves GET /questions/{question_id}: the resource a questions
// notification names, for the item's seller and the buyer who asked.
func (h handlers) question(c *fiber.Ctx) error {
	id, err := httpapi.PositiveID("question_id", c.Params("question_id"))
	if err != nil {
		return err
	}
	q, err := h.svc.Question(c.UserContext(), id)
	if err != nil {
		return err
	}
	return c.JSON(questionOut(q))
}
