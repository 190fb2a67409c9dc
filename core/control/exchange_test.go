package control

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMaskBody(t *testing.T) {
	cases := []struct{ ct, in, want string }{
		{"application/json", `{"a":1}`, `{"a":1}`},
		{"application/json", `{"access_token":"APP_USR-1","refresh_token" : "TG-2","x":"access_token"}`, `{"access_token":"***","refresh_token" : "***","x":"access_token"}`},
		{"application/json", `{"client_secret":"s\"3","sandbox_key":"k","password":"p"}`, `{"client_secret":"***","sandbox_key":"***","password":"***"}`},
		{"application/json", `{"code":"not_found","message":"m"}`, `{"code":"not_found","message":"m"}`},
		{"application/json", `{"zip_code":"TG-1","api_key":"k","my_password":"p"}`, `{"zip_code":"TG-1","api_key":"k","my_password":"p"}`},
		{"application/json", `{"x":{"password" :  "p\"q"}}`, `{"x":{"password" :  "***"}}`},
		{"application/json", `{"code":"TG-abc-123"}`, `{"code":"***"}`},
		{"application/json", `{"access_token":"APP_USR-cut`, `{"access_token":"***"`},
		{"application/x-www-form-urlencoded", "grant_type=refresh_token&refresh_token=TG-1&code=x", "grant_type=refresh_token&refresh_token=***&code=***"},
		{"multipart/form-data; boundary=x", "--x\r\naccess_token", "(multipart/form-data; boundary=x body not kept)"},
		{"application/octet-stream", "\xff\xfe\x00", "(application/octet-stream body not kept)"},
		{"application/pdf", "%PDF-1.4\n0123456789abcdef\n%%EOF\n", "(application/pdf body not kept)"},
		{"image/png", "PNG", "(image/png body not kept)"},
		{"text/plain; charset=utf-8", "hello", "hello"},
		{"application/xml", "<a>1</a>", "<a>1</a>"},
		{"", "plain words", "plain words"},
		{"", "\xff\xfe\x00", "(body not kept)"},
		{"", "", ""},
	}
	for _, c := range cases {
		if got, _ := MaskBody(c.ct, []byte(c.in)); got != c.want {
			t.Errorf("MaskBody(%q, %q) = %q, want %q", c.ct, c.in, got, c.want)
		}
	}
	// The bound splits a character at each of its bytes in turn: the
	// character is dropped whole, and nothing more.
	for _, lead := range []string{"", "a", "ab", "abc"} {
		long := lead + strings.Repeat("😀", BodyBound)
		got, truncated := MaskBody("text/plain", []byte(long))
		if !truncated || len(got) > BodyBound || !strings.HasPrefix(long, got) || len(got) < BodyBound-3 || !utf8.ValidString(got) {
			t.Errorf("a long body after %q: truncated %v, %d bytes kept, valid %v", lead, truncated, len(got), utf8.ValidString(got))
		}
	}
}

func TestMaskHeader(t *testing.T) {
	cases := [][3]string{
		{"Authorization", "Bearer APP_USR-1", "Bearer ***"},
		{"authorization", "Basic dXNlcjpwYXNz", "Basic ***"},
		{"X-Sandbox-Key", "the-key", "***"},
		{"Cookie", "s=abc; t=d", "***"},
		{"set-COOKIE", "s=abc; Path=/", "***"},
		{"Proxy-Authorization", "Basic abc", "Basic ***"},
		{"X-SANDBOX-KEY", "k", "***"},
		{"Location", "https://cb.example/x?code=TG-1&state=s", "https://cb.example/x?code=***&state=s"},
		{"Content-Type", "application/json", "application/json"},
	}
	for _, c := range cases {
		if got := MaskHeader(c[0], c[1]); got != c[2] {
			t.Errorf("MaskHeader(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// TestMayHoldSecret holds the word-at-a-time scan to the plain search it
// stands for (some name, quoted whole), with each name at every offset of
// a word, beside near misses.
func TestMayHoldSecret(t *testing.T) {
	names := []string{"code", "access_token", "refresh_token", "client_secret", "sandbox_key", "password"}
	plain := func(b string) bool {
		for _, n := range names {
			if strings.Contains(b, `"`+n+`"`) {
				return true
			}
		}
		return false
	}
	members := []string{`"zip_code"`, `"api_key"`, `"my_password"`, `"code`, `code"`, `"xcode"`, `"_token"`, `"oken"`}
	for _, n := range names {
		members = append(members, `"`+n+`"`, `"`+n[1:]+`"`, `"`+n+`x"`)
	}
	for _, m := range members {
		for pad := range 17 {
			for _, b := range []string{strings.Repeat("a", pad) + m, strings.Repeat(`"`, pad) + m + `:"v"`, `{"a":"` + strings.Repeat("b", pad) + `",` + m + `:1}`} {
				if got, want := mayHoldSecret([]byte(b)), plain(b); got != want {
					t.Errorf("mayHoldSecret(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}
