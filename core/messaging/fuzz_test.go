package messaging

import (
	"testing"
	"unicode/utf8"
)

// FuzzCheckText: the messaging rules never panic on any text, and a text
// they accept is non-blank valid UTF-8 within the limit in characters.
func FuzzCheckText(f *testing.F) {
	for _, s := range []string{"Hola, ¿me pasás tus datos de facturación?", "<b>hola</b>", "mirá instagram.com/x", "bit.ly/abc",
		"", " ", "\xff", "ñ", "http://", "www.facebook.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_ = Check(text)
		if err := CheckText(text, MaxBillingText); err == nil {
			if !utf8.ValidString(text) || utf8.RuneCountInString(text) > MaxBillingText {
				t.Fatalf("CheckText accepted %q", text)
			}
		}
	})
}
