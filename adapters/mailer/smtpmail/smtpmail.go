// Package smtpmail sends feria's e-mail through an SMTP server named by a URL
// smtp://[user:pass@]host:port, with github.com/wneessen/go-mail (maintained,
// context-aware, STARTTLS and auth handled; net/smtp is frozen).
package smtpmail

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/ports/notifyport"
)

// From is the sender of every mail.
const From = "feria <no-reply@feria.invalid>"

// Mailer sends mail over SMTP, one connection per mail (notifications are
// few and jobs run in parallel; a shared connection would serialise them).
type Mailer struct {
	host string
	opts []gomail.Option
}

var _ notifyport.Mailer = (*Mailer)(nil)

// New parses the SMTP URL. TLS is used when the server offers STARTTLS;
// credentials are only sent over TLS unless the URL asks otherwise with
// ?auth=plain-noenc (test and local servers).
func New(rawURL string) (*Mailer, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "smtp" || u.Host == "" {
		return nil, fmt.Errorf("smtpmail: want smtp://[user:pass@]host:port, got %q", rawURL)
	}
	host, portStr, err := net.SplitHostPort(u.Host)
	if err != nil {
		host, portStr = u.Host, "25"
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("smtpmail: bad port %q", portStr)
	}
	opts := []gomail.Option{gomail.WithPort(port), gomail.WithTLSPolicy(gomail.TLSOpportunistic),
		gomail.WithTimeout(15 * time.Second), gomail.WithHELO("feria")}
	if u.User != nil {
		pass, _ := u.User.Password()
		auth := gomail.SMTPAuthPlain
		if u.Query().Get("auth") == "plain-noenc" {
			auth = gomail.SMTPAuthPlainNoEnc
		}
		opts = append(opts, gomail.WithSMTPAuth(auth), gomail.WithUsername(u.User.Username()), gomail.WithPassword(pass))
	}
	return &Mailer{host: host, opts: opts}, nil
}

// Send delivers one mail. Its Message-ID is derived from the notification
// id, so that a mail sent again after a crash is the same message.
func (m *Mailer) Send(ctx context.Context, mail notify.Mail) error {
	msg := gomail.NewMsg()
	if err := msg.From(From); err != nil {
		return err
	}
	if err := msg.To(mail.To); err != nil {
		return fmt.Errorf("smtpmail: recipient %q: %w", mail.To, err)
	}
	msg.Subject(mail.Subject)
	msg.SetMessageIDWithValue(mail.ID + "@feria.invalid")
	msg.SetDate()
	msg.SetBodyString(gomail.TypeTextPlain, mail.Text)
	c, err := gomail.NewClient(m.host, m.opts...)
	if err != nil {
		return fmt.Errorf("smtpmail: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		var ne net.Error
		if errors.As(err, &ne) {
			return fmt.Errorf("smtpmail: %w", notifyport.ErrMailUnavailable.Wrap(err))
		}
		return fmt.Errorf("smtpmail: send %s: %w", mail.ID, err)
	}
	return nil
}
