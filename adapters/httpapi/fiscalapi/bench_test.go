package fiscalapi_test

import (
	"bytes"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// BenchmarkUpload uploads a 100 KiB PDF through the fiber app on the real
// backends (PostgreSQL, Redis, MinIO) and deletes it, so that the next
// upload finds the pack empty: allocations per op are the handler's and
// the service's, the figure the pooled file buffers lowered.
func BenchmarkUpload(b *testing.B) {
	a := apptest.New(b, apptest.Real)
	world(b, a)
	p := docsPath(orderAlone)
	pdf := append(append([]byte{}, pdfBytes[:len(pdfBytes)-6]...), bytes.Repeat([]byte("%"), 100<<10-len(pdfBytes))...)
	pdf = append(pdf, "%%EOF\n"...)
	body, ct := multipartBody(part{"fiscal_document", "factura.pdf", "application/pdf", pdf})
	sh := apptest.Bearer(tok(seller))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		uploadRaw(a, p, tok(seller), ct, body).HasStatus(b, 201)
		a.Do("DELETE", p, nil, sh...).HasStatus(b, 200)
	}
}
