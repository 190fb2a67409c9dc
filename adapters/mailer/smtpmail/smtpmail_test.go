package smtpmail_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/adapters/mailer/smtpmail"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/test/smtptest"
)

func TestSend(t *testing.T) {
	srv := smtptest.Start(t)
	m, err := smtpmail.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	mail := notify.Mail{ID: "n-1", To: "user-20@users.feria.invalid", Subject: "Your invoice is available", Text: "Pack 7: ñandú"}
	if err := m.Send(context.Background(), mail); err != nil {
		t.Fatal(err)
	}
	got := srv.WaitFor(1, 5*time.Second)
	if len(got) != 1 {
		t.Fatalf("received %d mails", len(got))
	}
	g := got[0]
	if len(g.To) != 1 || g.To[0] != mail.To || g.Header("Subject") != mail.Subject || g.Header("Message-Id") != "<n-1@feria.invalid>" {
		t.Fatalf("got to=%v subject=%q id=%q", g.To, g.Header("Subject"), g.Header("Message-Id"))
	}
	body, _ := io.ReadAll(g.Msg.Body)
	if !strings.Contains(string(body), "Pack 7") {
		t.Fatalf("body %q", body)
	}
}

func TestSendFails(t *testing.T) {
	srv := smtptest.Start(t)
	srv.SetFail(true)
	m, _ := smtpmail.New(srv.URL())
	if err := m.Send(context.Background(), notify.Mail{ID: "x", To: "a@b.invalid", Subject: "s", Text: "t"}); err == nil {
		t.Fatal("a refused mail must be an error (the job retries)")
	}
	down, _ := smtpmail.New("smtp://127.0.0.1:1")
	err := down.Send(context.Background(), notify.Mail{ID: "x", To: "a@b.invalid", Subject: "s", Text: "t"})
	if kernel.KindOf(err) != kernel.Unavailable {
		t.Fatalf("unreachable server: %v", err)
	}
	if _, err := smtpmail.New("http://x"); err == nil {
		t.Fatal("bad URL accepted")
	}
}
