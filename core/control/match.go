package control

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/feria/feria/core/kernel"
)

// PathMatches compares a rule's pattern with the path as the client sent
// it (undecoded, without its query), segment by segment: `*` matches
// exactly one non-empty segment, any other segment matches itself exactly
// (case included). A trailing slash is a segment of its own (empty), so
// "/items/*" matches "/items/MLA1" and not "/items/MLA1/".
func PathMatches(pattern, path string) bool {
	for {
		ps, prest, pmore := cutSegment(pattern)
		s, rest, more := cutSegment(path)
		if ps == "*" {
			if s == "" {
				return false
			}
		} else if ps != s {
			return false
		}
		if pmore != more {
			return false
		}
		if !more {
			return true
		}
		pattern, path = prest, rest
	}
}

// cutSegment splits "/a/b" into "a" and "/b"; more is false on the last
// segment.
func cutSegment(p string) (seg, rest string, more bool) {
	p = strings.TrimPrefix(p, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:], true
	}
	return p, "", false
}

func methodMatches(rule *string, method string) bool {
	return rule == nil || *rule == method
}

// nonPublic are the first path segments that are not the public API
// (docs/sandbox.md): no rule applies there and the journal leaves them out.
var nonPublic = []string{"sandbox", "health", "metrics", "admin", "docs", "console"}

// Public reports whether a request path is the public API: not /sandbox,
// /health, /metrics, /admin, /openapi.*, /docs or /console, nor anything
// under them.
// The first segment is compared without case because the router serves
// /SANDBOX as /sandbox.
func Public(path string) bool {
	first, _, _ := cutSegment(path)
	for _, p := range nonPublic {
		if strings.EqualFold(first, p) {
			return false
		}
	}
	return !(len(first) > len("openapi.") && strings.EqualFold(first[:len("openapi.")], "openapi."))
}

// Masked is what the journal shows in place of an access token.
const Masked = "***"

// MaskQuery returns the query string (or a form body) as sent with the
// value of every access_token, refresh_token, client_secret and code
// parameter replaced by ***. Parameter names are compared
// decoded (access%5Ftoken is the same parameter to the router); everything
// else is kept byte for byte.
func MaskQuery(q string) string {
	if !strings.Contains(q, "_") && !strings.Contains(q, "%") && !strings.Contains(q, "code") {
		return q // no parameter can be a secret: the common case, no copy
	}
	var b strings.Builder
	for i, pair := range strings.Split(q, "&") {
		if i > 0 {
			b.WriteByte('&')
		}
		name, _, hasValue := strings.Cut(pair, "=")
		if hasValue && isSecretParam(name) {
			b.WriteString(name)
			b.WriteString("=" + Masked)
			continue
		}
		b.WriteString(pair)
	}
	return b.String()
}

// secretParams are the parameters whose values the journal never keeps:
// tokens, an application's secret and an authorization code.
var secretParams = map[string]bool{"access_token": true, "refresh_token": true, "client_secret": true, "code": true}

func isSecretParam(name string) bool {
	if secretParams[name] {
		return true
	}
	if !strings.ContainsAny(name, "%+") {
		return false
	}
	n, err := url.QueryUnescape(name)
	return err == nil && secretParams[n]
}

// CallerKey names whom a rate limit counts: the token's application when
// it has one, else the token's user, else (no token, or an invalid one)
// the client address.
func CallerKey(caller *kernel.Caller, addr string) string {
	switch {
	case caller != nil && caller.AppID != 0:
		return "app:" + strconv.FormatInt(caller.AppID, 10)
	case caller != nil:
		return "user:" + strconv.FormatInt(caller.UserID, 10)
	}
	return "addr:" + addr
}
