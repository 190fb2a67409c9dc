package fiscal

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSniff: bytes are a PDF only when they start like one; nothing panics
// on any bytes (the XML reader included).
func FuzzSniff(f *testing.F) {
	f.Add(pdf)
	f.Add(xmlDoc)
	f.Add([]byte("<a><b></a>"))
	f.Add([]byte("<?xml version=\"1.0\"?><a/><b/>"))
	f.Add([]byte("%PDF"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		ft, ok := Sniff(data)
		if ok && ft == PDF && !bytes.HasPrefix(data, []byte("%PDF-")) {
			t.Fatalf("Sniff(%q) = PDF", data)
		}
	})
}

// FuzzCheckUpload: an upload the rules accept has valid names and files
// within their size, of the type their bytes are.
func FuzzCheckUpload(f *testing.F) {
	f.Add("a.pdf", "application/pdf", pdf, "", "", []byte(nil))
	f.Add("a.pdf", "", pdf, "a.xml", "text/xml", xmlDoc)
	f.Add("a\x00.pdf", "application/pdf", pdf, "", "", []byte(nil))
	f.Add("a.pdf", "application/pdf; charset=x", pdf, "b.pdf", "", pdf)
	f.Fuzz(func(t *testing.T, name1, type1 string, data1 []byte, name2, type2 string, data2 []byte) {
		files := []File{{Name: name1, DeclaredType: type1, Data: data1}}
		if name2 != "" {
			files = append(files, File{Name: name2, DeclaredType: type2, Data: data2})
		}
		checked, err := CheckUpload(7, 10, nil, files)
		if err != nil {
			return
		}
		if len(checked) != len(files) {
			t.Fatalf("%d files checked of %d", len(checked), len(files))
		}
		for i, f := range files {
			if !utf8.ValidString(f.Name) || strings.ContainsRune(f.Name, 0) || len(f.Name) > MaxFilenameLen || len(f.Data) > MaxPDFSize {
				t.Fatalf("file %d accepted: %q, %d bytes", i, f.Name, len(f.Data))
			}
			if ft, ok := Sniff(f.Data); !ok || ft != checked[i].Type {
				t.Fatalf("file %d accepted as %v; its bytes are %v (%v)", i, checked[i].Type, ft, ok)
			}
		}
	})
}

// FuzzParsePackID: an id that parses is positive.
func FuzzParsePackID(f *testing.F) {
	for _, s := range []string{"2000001234", "0", "-1", "", " 1", "1e3", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if id, err := ParsePackID(raw); err == nil && id <= 0 {
			t.Fatalf("ParsePackID(%q) = %d", raw, id)
		}
	})
}
