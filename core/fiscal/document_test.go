package fiscal

import (
	"bytes"
	"errors"
	"testing"

	"github.com/feria/feria/core/kernel"
)

var (
	pdf    = []byte("%PDF-1.4\n1 0 obj<<>>endobj\n%%EOF\n")
	xmlDoc = []byte(`<?xml version="1.0"?><factura><total>10</total></factura>`)
)

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want FileType
		ok   bool
	}{
		{"pdf", pdf, PDF, true},
		{"xml", xmlDoc, XML, true},
		{"xml with trailing space and comment", append(append([]byte{}, xmlDoc...), " \n<!-- end -->\n"...), XML, true},
		{"xml with trailing garbage", append(append([]byte{}, xmlDoc...), "garbage"...), "", false},
		{"two roots", []byte("<a/><b/>"), "", false},
		{"unclosed", []byte("<a><b></a>"), "", false},
		{"text", []byte("hello"), "", false},
		{"pdf signature late", append([]byte(" "), pdf...), "", false},
	}
	for _, tt := range tests {
		got, ok := Sniff(tt.data)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: Sniff = %q %v, want %q %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCheckUpload(t *testing.T) {
	havePDF := []Document{{FileType: PDF}}
	haveBoth := []Document{{FileType: PDF}, {FileType: XML}}
	big := append(append([]byte{}, pdf...), bytes.Repeat([]byte{'x'}, MaxPDFSize+1-len(pdf))...)
	exact := big[:MaxPDFSize]
	tests := []struct {
		name     string
		existing []Document
		files    []File
		want     error
	}{
		{"pdf", nil, []File{{"a.pdf", "application/pdf", pdf}}, nil},
		{"pdf and xml", nil, []File{{"a.pdf", "application/pdf", pdf}, {"a.xml", "text/xml", xmlDoc}}, nil},
		{"xml beside stored pdf", havePDF, []File{{"a.xml", "application/xml", xmlDoc}}, nil},
		{"undeclared pdf", nil, []File{{"a.pdf", "", pdf}}, nil},
		{"pdf of exactly 10^6 bytes", nil, []File{{"a.pdf", "application/pdf", exact}}, nil},
		{"none", nil, nil, ErrFileMissing},
		{"empty", nil, []File{{"a.pdf", "application/pdf", nil}}, ErrFileEmpty},
		{"no name", nil, []File{{" ", "application/pdf", pdf}}, ErrFilename},
		{"NUL in name", nil, []File{{"a\x00.pdf", "application/pdf", pdf}}, ErrFilename},
		{"name not UTF-8", nil, []File{{"a\xff.pdf", "application/pdf", pdf}}, ErrFilename},
		{"type not allowed", nil, []File{{"a.png", "image/png", pdf}}, ErrFileType},
		{"pdf declared xml", nil, []File{{"a.xml", "application/xml", pdf}}, ErrFileType},
		{"garbage", nil, []File{{"a.pdf", "application/pdf", []byte("nope")}}, ErrFileType},
		{"too large", nil, []File{{"a.pdf", "application/pdf", big}}, ErrFileSize},
		{"three", nil, []File{{"a", "", pdf}, {"b", "", xmlDoc}, {"c", "", pdf}}, ErrTooManyInRequest},
		{"two pdf", nil, []File{{"a", "", pdf}, {"b", "", pdf}}, ErrSameTypeInRequest},
		{"lone xml", nil, []File{{"a.xml", "text/xml", xmlDoc}}, ErrLoneXML},
		{"third file", haveBoth, []File{{"a.pdf", "", pdf}}, ErrPackFull},
		{"pdf again", havePDF, []File{{"a.pdf", "", pdf}}, ErrTypePresent},
		{"two beside one", havePDF, []File{{"a.pdf", "", pdf}, {"a.xml", "", xmlDoc}}, ErrPackFull},
	}
	for _, tt := range tests {
		_, err := CheckUpload(1001, 7, tt.existing, tt.files)
		if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
	// The marketplace's messages name the type, the pack and the seller.
	for _, tt := range []struct {
		existing []Document
		files    []File
		msg      string
	}{
		{nil, []File{{"a.png", "Image/PNG; q=1", pdf}}, "File type: image/png is not allowed"},
		{nil, []File{{"a", "", xmlDoc}, {"b", "", xmlDoc}}, "Files Not allowed, you can upload only one file of type: application/xml"},
		{haveBoth, []File{{"a.pdf", "", pdf}}, "File Not allowed, the max amount of files already exist for the pack: 1001 and seller: 7"},
		{havePDF, []File{{"a.pdf", "", pdf}}, "File Not allowed, a file already exists for the pack: 1001 and seller: 7 of the type: application/pdf"},
		{nil, []File{{"a", "", pdf}, {"b", "", xmlDoc}, {"c", "", pdf}}, "Files Not allowed, you can upload only two files, one of each type"},
	} {
		if _, err := CheckUpload(1001, 7, tt.existing, tt.files); kernel.MessageOf(err) != tt.msg {
			t.Errorf("message %q, want %q", kernel.MessageOf(err), tt.msg)
		}
	}
}

func TestParsePackID(t *testing.T) {
	for raw, msg := range map[string]string{"": "pack.id must be numeric and not empty", " ": "pack.id must be numeric and not empty",
		"abc": "pack.id must be numeric and not empty", "1.5": "pack.id must be numeric and not empty",
		"99999999999999999999": "pack.id must be numeric and not empty", "0": "pack.id is invalid", "-5": "pack.id is invalid"} {
		if _, err := ParsePackID(raw); !errors.Is(err, ErrPackID) || kernel.MessageOf(err) != msg {
			t.Errorf("ParsePackID(%q) = %v, want %q", raw, err, msg)
		}
	}
	if id, err := ParsePackID("2000001234"); err != nil || id != 2000001234 {
		t.Errorf("got %d %v", id, err)
	}
}

func TestCheckAccess(t *testing.T) {
	p := Pack{ID: 1, SiteID: "MLA", SellerID: 10, BuyerID: 20}
	chile := Pack{ID: 2, SiteID: "MLC", SellerID: 10, BuyerID: 20, LogisticType: Fulfillment}
	tests := []struct {
		name string
		p    Pack
		c    kernel.Caller
		act  Action
		want error
	}{
		{"seller uploads", p, kernel.Caller{UserID: 10, SiteID: "MLA"}, ActUpload, nil},
		{"buyer lists", p, kernel.Caller{UserID: 20, SiteID: "MLA"}, ActList, nil},
		{"buyer uploads", p, kernel.Caller{UserID: 20, SiteID: "MLA"}, ActUpload, ErrForbidden},
		{"stranger lists", p, kernel.Caller{UserID: 30, SiteID: "MLA"}, ActList, ErrForbidden},
		{"brazil", Pack{ID: 3, SiteID: "MLB", SellerID: 10, BuyerID: 20}, kernel.Caller{UserID: 10, SiteID: "MLB"}, ActList, ErrSiteUnavailable},
		{"a brazilian pack", Pack{ID: 3, SiteID: "MLB", SellerID: 10, BuyerID: 20}, kernel.Caller{UserID: 10, SiteID: "MLA"}, ActList, ErrSiteUnavailable},
		{"chile fulfillment", chile, kernel.Caller{UserID: 10, SiteID: "MLC"}, ActUpload, ErrFulfillment},
	}
	for _, tt := range tests {
		_, err := CheckAccess(tt.p, tt.c, tt.act)
		if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
}
