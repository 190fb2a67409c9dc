// Package httpcallback posts notifications to integrators' callback URLs
// with net/http, as a client that a receiver cannot hold or flood: every
// attempt has a deadline, no redirect is followed, no cookie is kept, no
// proxy is used, and only so much of an answer is read.
package httpcallback

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/webhooksport"
)

// Sender implements webhooksport.Sender.
type Sender struct{ client *http.Client }

var _ webhooksport.Sender = (*Sender)(nil)

// New returns a sender. Its connections to a callback are kept for reuse:
// an application receives many notifications. Whatever a callback's host
// name resolves to, no connection is made to a link-local or metadata
// address, nor to a loopback or private one unless allowPrivate (guard,
// checked as each connection is dialled).
func New(allowPrivate bool) *Sender {
	transport := &http.Transport{
		Proxy: nil, // callbacks are reached directly, never through the environment's proxy
		DialContext: (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second,
			Control: guard(allowPrivate)}).DialContext,
		TLSHandshakeTimeout:    5 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		DisableCompression:     true, // no Accept-Encoding: the request carries exactly its headers
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        90 * time.Second,
	}
	return &Sender{client: &http.Client{
		Transport: transport,
		// A redirect is the callback's answer (a failure), never followed:
		// the notification goes to the URL its owner gave, nowhere else.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Post sends the request and waits for its answer at most timeout, the
// body read included.
func (s *Sender) Post(ctx context.Context, req webhooks.Request, timeout time.Duration) webhooks.Exchange {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, req.URL, strings.NewReader(req.Data))
	if err != nil {
		return webhooks.Exchange{Err: "the callback URL cannot be requested"}
	}
	hr.Header = make(http.Header, len(req.Headers))
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	start := time.Now()
	res, err := s.client.Do(hr)
	took := time.Since(start)
	if err != nil {
		return webhooks.Exchange{Duration: took, Err: failure(ctx, err, timeout)}
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, webhooks.MaxResponseBody))
	headers := make(map[string]string, len(res.Header))
	for k, vs := range res.Header {
		headers[k] = strings.Join(vs, ", ")
	}
	return webhooks.Exchange{Status: res.StatusCode, Duration: took, Body: string(body), Headers: headers}
}

// failure says why nothing answered, without the request's URL (the
// delivery's record names it once).
func failure(ctx context.Context, err error, timeout time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timeout: no answer within %d ms", timeout.Milliseconds())
	}
	var no refused
	if errors.As(err, &no) {
		return no.msg
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}
