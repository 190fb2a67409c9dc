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

// FuzzCheckAttachment: the attachment rules never panic on any name and
// content, and a file they accept has an accepted extension, a content
// type, and 1 to MaxAttachmentSize bytes.
func FuzzCheckAttachment(f *testing.F) {
	for _, s := range []struct{ name, data string }{{"foto.png", "\x89PNG\r\n\x1a\n"}, {"a.JPG", "\xff\xd8\xff"}, {"f.pdf", "%PDF-1.4"},
		{"n.txt", "ñandú"}, {"n.txt", "a\x00"}, {"", "x"}, {"a.exe", "MZ"}, {"\xff.txt", "x"}, {".png", ""}} {
		f.Add(s.name, []byte(s.data))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		ext, ctype, err := CheckAttachment(name, data)
		if err != nil {
			return
		}
		switch ext {
		case "jpg", "jpeg", "png", "pdf", "txt":
		default:
			t.Fatalf("CheckAttachment(%q) accepted extension %q", name, ext)
		}
		if ctype == "" || len(data) == 0 || len(data) > MaxAttachmentSize || !utf8.ValidString(name) {
			t.Fatalf("CheckAttachment(%q, %d bytes) accepted as %q", name, len(data), ctype)
		}
	})
}
