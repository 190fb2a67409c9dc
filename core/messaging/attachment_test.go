package messaging

import (
	"errors"
	"testing"
)

func TestCheckAttachment(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	cases := []struct {
		name       string
		data       []byte
		ext, ctype string
		err        error
	}{
		{"foto.PNG", png, "png", "image/png", nil},
		{"a.jpg", []byte("\xff\xd8\xff\xe0"), "jpg", "image/jpeg", nil},
		{"a.jpeg", []byte("\xff\xd8\xff\xdb"), "jpeg", "image/jpeg", nil},
		{"factura.pdf", []byte("%PDF-1.4"), "pdf", "application/pdf", nil},
		{"nota.txt", []byte("ñandú"), "txt", "text/plain; charset=utf-8", nil},
		{"limit.png", append(append([]byte{}, png...), make([]byte, MaxAttachmentSize-len(png))...), "png", "image/png", nil},
		{"over.png", append(append([]byte{}, png...), make([]byte, MaxAttachmentSize+1-len(png))...), "", "", ErrAttachmentSize},
		{"empty.txt", nil, "", "", ErrAttachmentSize},
		{"bin.txt", []byte("a\x00b"), "", "", ErrAttachmentType},
		{"fake.png", []byte("%PDF-1.4"), "", "", ErrAttachmentType},
		{"virus.exe", png, "", "", ErrAttachmentType},
		{"noext", png, "", "", ErrAttachmentType},
		{" ", png, "", "", ErrNoFile},
		{"", png, "", "", ErrNoFile},
	}
	for _, c := range cases {
		ext, ctype, err := CheckAttachment(c.name, c.data)
		if ext != c.ext || ctype != c.ctype || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("CheckAttachment(%q, %d bytes) = %q %q %v; want %q %q %v", c.name, len(c.data), ext, ctype, err, c.ext, c.ctype, c.err)
		}
	}
}
