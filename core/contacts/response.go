package contacts

import (
	"math"
	"slices"
	"strings"
	"time"
)

// QuestionStatuses are the statuses a questions search may filter by: the
// marketplace's statuses of a question. feria sets Unanswered and Answered;
// the others are accepted and match nothing.
var QuestionStatuses = []string{Unanswered, Answered, "CLOSED_UNANSWERED", "UNDER_REVIEW", "BANNED", "DISABLED"}

// QuestionFilter selects a seller's questions: of one item when ItemID is
// set, of one status when Status is set.
type QuestionFilter struct {
	SellerID int64
	ItemID   string
	Status   string
}

// ParseQuestionStatus checks a status filter; empty is no filter.
func ParseQuestionStatus(s string) (string, error) {
	if s == "" || slices.Contains(QuestionStatuses, s) {
		return s, nil
	}
	msg := "status must be one of " + strings.Join(QuestionStatuses, ", ") + ", got " + quote(s)
	return "", ErrBadRequest.With(msg).WithCause("status", msg)
}

// Working hours are 09:00 to 18:00, Monday to Friday, in UTC.
const (
	workStart = 9
	workEnd   = 18
)

// ResponseTime is a seller's mean time to answer a question, in whole
// minutes, over every question answered; a nil time is a bucket without an
// answered question. The buckets split the questions by when they were
// asked: on a weekend, on a weekday's working hours, or on a weekday
// outside them.
type ResponseTime struct {
	UserID       int64
	Total        *int64
	Weekend      *int64
	WorkingHours *int64
	ExtraHours   *int64
}

// ResponseTimes computes a seller's response times from their answered
// questions.
func ResponseTimes(userID int64, answered []AskedQuestion) ResponseTime {
	var all, weekend, working, extra []time.Duration
	for _, q := range answered {
		if q.Answer == nil {
			continue
		}
		d := max(q.Answer.DateCreated.Sub(q.DateCreated), 0)
		all = append(all, d)
		at := q.DateCreated.UTC()
		switch {
		case at.Weekday() == time.Saturday || at.Weekday() == time.Sunday:
			weekend = append(weekend, d)
		case at.Hour() >= workStart && at.Hour() < workEnd:
			working = append(working, d)
		default:
			extra = append(extra, d)
		}
	}
	return ResponseTime{UserID: userID, Total: meanMinutes(all), Weekend: meanMinutes(weekend),
		WorkingHours: meanMinutes(working), ExtraHours: meanMinutes(extra)}
}

// meanMinutes is the mean of ds rounded to the nearest minute; nil for none.
func meanMinutes(ds []time.Duration) *int64 {
	if len(ds) == 0 {
		return nil
	}
	var sum float64
	for _, d := range ds {
		sum += d.Minutes()
	}
	m := int64(math.Round(sum / float64(len(ds))))
	return &m
}
