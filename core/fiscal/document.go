// Package fiscal holds the fiscal documents (invoices) a seller attaches to a
// pack, and the rules an upload must follow: which files a pack may hold, how
// a file is recognised from its bytes, and who may touch a pack's documents.
package fiscal

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feria/feria/core/kernel"
)

// FileType is the kind of a fiscal document, recognised from its bytes.
type FileType string

const (
	PDF FileType = "pdf"
	XML FileType = "xml"
)

// ContentType is the content type a document of that type is served with.
func (t FileType) ContentType() string {
	if t == XML {
		return "application/xml"
	}
	return "application/pdf"
}

// MaxPDFSize is the marketplace's "1 MB": 10^6 bytes, the SI megabyte, so that a
// file the seller's system sizes as "1 MB" in either convention is not
// refused by surprise at the stricter reading of ours (docs/decisions.md).
const MaxPDFSize = 1_000_000

// MaxXMLSize bounds an XML document; the marketplace gives no limit for it, so it
// shares the PDF's.
const MaxXMLSize = MaxPDFSize

// MaxFilesPerPack is the marketplace's "two files per pack, one of each type".
const MaxFilesPerPack = 2

// MaxFilenameLen bounds the stored file name.
const MaxFilenameLen = 255

// Document is one stored fiscal document of a pack.
type Document struct {
	ID          string // plain uuid
	PackID      int64
	SellerID    int64 // the seller who loaded it
	FileType    FileType
	Filename    string
	ContentType string
	Size        int64
	Key         string // where the bytes are in the blob store
	DateCreated time.Time
}

// PublicID is the id the upload and delete answers show: <seller_id>_<uuid>.
func (d Document) PublicID() string { return strconv.FormatInt(d.SellerID, 10) + "_" + d.ID }

// SplitPublicID accepts either form of a document id (plain uuid or
// <seller_id>_<uuid>) and returns the uuid.
func SplitPublicID(id string) string {
	if i := strings.IndexByte(id, '_'); i >= 0 {
		return id[i+1:]
	}
	return id
}

// Pack is what the fiscal rules need to know of a pack: its site, its seller
// and buyer, and how it is shipped.
type Pack struct {
	ID           int64
	SiteID       string
	SellerID     int64
	BuyerID      int64
	LogisticType string
}

// Role is how a caller relates to a pack.
type Role int

const (
	Stranger Role = iota
	Seller
	Buyer
)

// RoleOf returns the caller's role in the pack.
func (p Pack) RoleOf(userID int64) Role {
	switch userID {
	case p.SellerID:
		return Seller
	case p.BuyerID:
		return Buyer
	}
	return Stranger
}

// UnavailableSites are the sites the API is not offered on (the marketplace:
// all sites except the Brazilian one).
var UnavailableSites = map[string]bool{"MLB": true}

// Fulfillment is the logistic type of packs the Chilean site keeps out of
// fiscal documents.
const Fulfillment = "fulfillment"

// ParsePackID reads the pack id of a path: a positive integer.
func ParsePackID(raw string) (int64, error) {
	if strings.TrimSpace(raw) == "" {
		return 0, ErrPackID.WithCause("pack_id", "pack_id is required")
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return 0, ErrPackID.WithCause("pack_id", "pack_id must be numeric")
	}
	if id <= 0 {
		return 0, InvalidPackID().WithCause("pack_id", "pack_id must be a positive integer")
	}
	return id, nil
}

// Action is what a caller wants to do with a pack's documents.
type Action int

const (
	ActUpload Action = iota
	ActList
	ActDownload
	ActDelete
	ActBilling
)

// CheckAccess decides whether the caller may act on the pack: the API is not
// offered on the Brazilian site nor on Chilean fulfilment packs; sellers
// upload, delete and request billing data; sellers and buyers list and
// download.
func CheckAccess(p Pack, caller kernel.Caller, act Action) (Role, error) {
	for _, site := range []string{caller.SiteID, p.SiteID} {
		if UnavailableSites[site] {
			return Stranger, SiteUnavailable(site)
		}
	}
	role := p.RoleOf(caller.UserID)
	if role == Stranger {
		return role, ErrForbidden
	}
	if p.SiteID == "MLC" && p.LogisticType == Fulfillment {
		return role, ErrFulfillment
	}
	switch act {
	case ActUpload, ActDelete, ActBilling:
		if role != Seller {
			return role, ErrForbidden
		}
	}
	return role, nil
}

// File is one uploaded file as received.
type File struct {
	Name         string
	DeclaredType string // the part's Content-Type
	Data         []byte
}

// declared maps the accepted declared content types to a file type.
var declared = map[string]FileType{
	"application/pdf": PDF,
	"application/xml": XML,
	"text/xml":        XML,
}

// DeclaredType returns the type a declared content type names; parameters
// such as "; charset=utf-8" are ignored. An octet-stream or missing type
// declares nothing, and the bytes decide.
func DeclaredType(ct string) (FileType, bool, error) {
	ct = strings.ToLower(strings.TrimSpace(ct))
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = strings.TrimSpace(ct[:i])
	}
	if ct == "" || ct == "application/octet-stream" {
		return "", false, nil
	}
	t, ok := declared[ct]
	if !ok {
		return "", false, TypeNotAllowed(ct)
	}
	return t, true, nil
}

// Sniff recognises a file from its bytes: a PDF by its %PDF- signature, an
// XML document by parsing it to the end (one root element, nothing but
// whitespace, comments or processing instructions after it).
func Sniff(data []byte) (FileType, bool) {
	if bytes.HasPrefix(data, []byte("%PDF-")) {
		return PDF, true
	}
	if isXML(data) {
		return XML, true
	}
	return "", false
}

func isXML(data []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	depth, roots := 0, 0
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			return roots == 1 && depth == 0
		}
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if roots > 1 {
					return false
				}
			}
			depth++
		case xml.EndElement:
			depth--
			if depth < 0 {
				return false
			}
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return false // text outside the root element: trailing garbage
			}
		}
	}
}

// Checked is an uploaded file that passed the rules.
type Checked struct {
	File
	Type FileType
}

// CheckUpload applies the upload rules to the files seller sellerID sends
// to pack packID in one request, given the documents the pack already
// holds (any seller's).
func CheckUpload(packID, sellerID int64, existing []Document, files []File) ([]Checked, error) {
	if len(files) == 0 {
		return nil, ErrFileMissing
	}
	if len(files) > MaxFilesPerPack {
		return nil, ErrTooManyInRequest
	}
	out := make([]Checked, 0, len(files))
	seen := map[FileType]bool{}
	for i, f := range files {
		field := "fiscal_document[" + strconv.Itoa(i) + "]"
		if strings.TrimSpace(f.Name) == "" {
			return nil, ErrFilename.WithCause(field, "file name is empty")
		}
		if len(f.Name) > MaxFilenameLen {
			return nil, ErrFilename.Withf("file name is longer than %d bytes", MaxFilenameLen).WithCause(field, "file name too long")
		}
		if !utf8.ValidString(f.Name) || strings.ContainsRune(f.Name, 0) {
			// Stored as text: PostgreSQL refuses both.
			return nil, ErrFilename.With("file name must be valid UTF-8 without NUL characters").WithCause(field, "file name is not valid text")
		}
		if len(f.Data) == 0 {
			return nil, ErrFileEmpty.WithCause(field, "file is empty")
		}
		decl, hasDecl, err := DeclaredType(f.DeclaredType)
		if err != nil {
			return nil, err.(*kernel.Error).WithCause(field, "file type not allowed")
		}
		actual, ok := Sniff(f.Data)
		if !ok {
			return nil, ErrFileType.Withf("file %s is neither a PDF nor a well-formed XML document", f.Name).WithCause(field, "file content not allowed")
		}
		if hasDecl && decl != actual {
			return nil, ErrFileType.Withf("file %s is declared as %s but its content is %s", f.Name, decl, actual).WithCause(field, "declared type does not match the content")
		}
		if actual == PDF && len(f.Data) > MaxPDFSize {
			return nil, ErrFileSize.WithCause(field, fmt.Sprintf("file %s has %d bytes; a PDF may have at most %d", f.Name, len(f.Data), MaxPDFSize))
		}
		if actual == XML && len(f.Data) > MaxXMLSize {
			return nil, ErrFileSize.WithCause(field, fmt.Sprintf("file %s has %d bytes; an XML may have at most %d", f.Name, len(f.Data), MaxXMLSize))
		}
		if seen[actual] {
			return nil, SameTypeInRequest(actual)
		}
		seen[actual] = true
		out = append(out, Checked{File: f, Type: actual})
	}
	have := map[FileType]bool{}
	for _, d := range existing {
		have[d.FileType] = true
	}
	if len(existing) >= MaxFilesPerPack || len(existing)+len(out) > MaxFilesPerPack {
		return nil, PackFull(packID, sellerID)
	}
	for _, c := range out {
		if have[c.Type] {
			return nil, TypePresent(packID, sellerID, c.Type)
		}
	}
	// A lone XML is accepted only beside its PDF, sent now or before.
	if seen[XML] && !seen[PDF] && !have[PDF] {
		return nil, ErrLoneXML
	}
	return out, nil
}
