// Package smtptest runs a real SMTP server (github.com/emersion/go-smtp) in a
// test and records what it receives, so that mail tests go over the wire.
package smtptest

import (
	"io"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Message is one received mail.
type Message struct {
	From string
	To   []string
	Raw  string
	Msg  *mail.Message
}

// Header returns a header of the message.
func (m Message) Header(name string) string { return m.Msg.Header.Get(name) }

// Server is a running SMTP server.
type Server struct {
	Addr string
	srv  *smtp.Server
	mu   sync.Mutex
	msgs []Message
	// fail, when set, refuses DATA with a temporary error.
	fail bool
	// held, when set, keeps DATA waiting: see Hold.
	held    chan struct{}
	holding chan struct{}
	// accepting: a held message is taken when its data arrives, before the
	// final reply (see HoldAccepting).
	accepting bool
	// waiting counts the messages held right now.
	waiting int
}

// Held is how many messages are held right now: each is a client (a worker
// job) waiting for the final reply.
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting
}

// Hold makes the next messages wait after their data arrived, as a slow
// server would, and returns a channel closed once one is waiting. Release
// ends the wait; a held message is then refused (451), as a server does when
// the client gave up before the final reply: it was never accepted.
func (s *Server) Hold() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = make(chan struct{})
	s.holding = make(chan struct{})
	return s.holding
}

// HoldAccepting is Hold for a server that takes a message as soon as its
// data ends, before it writes the final reply, as Postfix and most servers
// do (the queue file is committed, then 250 is written): a client that dies
// waiting for the reply has delivered the mail all the same.
func (s *Server) HoldAccepting() <-chan struct{} {
	ch := s.Hold()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accepting = true
	return ch
}

// Release lets held messages go (refused) and stops holding new ones.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held != nil {
		close(s.held)
		s.held, s.holding = nil, nil
	}
	s.accepting = false
}

// Start runs a server on a free local port until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: l.Addr().String()}
	s.srv = smtp.NewServer(backend{s})
	s.srv.Domain = "localhost"
	s.srv.AllowInsecureAuth = true
	s.srv.ReadTimeout = 10 * time.Second
	s.srv.WriteTimeout = 10 * time.Second
	go s.srv.Serve(l) //nolint:errcheck // ends with Close
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// URL is the SMTP_URL of the server.
func (s *Server) URL() string { return "smtp://" + s.Addr }

// SetFail makes the server refuse (or accept again) messages.
func (s *Server) SetFail(fail bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = fail
}

// Messages returns what was received so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// WaitFor waits until n messages arrived or the timeout passes, and returns
// what arrived.
func (s *Server) WaitFor(n int, timeout time.Duration) []Message {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if m := s.Messages(); len(m) >= n {
			return m
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s.Messages()
}

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s    *Server
	from string
	to   []string
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }
func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	x.from = from
	return nil
}
func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}
func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	if held := x.s.held; held != nil {
		select {
		case <-x.s.holding:
		default:
			close(x.s.holding)
		}
		x.s.waiting++
		defer func() {
			x.s.mu.Lock()
			x.s.waiting--
			x.s.mu.Unlock()
		}()
		if x.s.accepting {
			if msg, err := mail.ReadMessage(strings.NewReader(string(raw))); err == nil {
				x.s.msgs = append(x.s.msgs, Message{From: x.from, To: x.to, Raw: string(raw), Msg: msg})
			}
			x.s.mu.Unlock()
			<-held
			return nil // to a client that is gone
		}
		x.s.mu.Unlock()
		<-held
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "held, then given up"}
	}
	defer x.s.mu.Unlock()
	if x.s.fail {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		return err
	}
	x.s.msgs = append(x.s.msgs, Message{From: x.from, To: x.to, Raw: string(raw), Msg: msg})
	return nil
}
