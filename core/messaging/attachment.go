package messaging

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feria/feria/core/kernel"
)

// Limits of an after-sale message and its attachments. The marketplace
// takes texts of at most 350 characters and files of at most 25 MB (the SI
// megabyte, as fiscal.MaxPDFSize reads its "1 MB") of its image, PDF and
// text types; how many files a message carries it leaves open
// (docs/decisions.md).
const (
	MaxMessageText        = 350
	MaxAttachmentSize     = 25_000_000
	MaxMessageAttachments = 10
)

// UnsentKeep is how long an attachment no message carries is kept: the
// retention job removes it, file and row, once it is older.
const UnsentKeep = 24 * time.Hour

// Attachment is a file uploaded for a message: its uploader's until a
// message carries it, then its message's sender's and recipient's.
type Attachment struct {
	// ID is the marketplace's: <uploader>_<uuid>.<extension>.
	ID          string    `json:"id"`
	UserID      int64     `json:"user_id"`
	Filename    string    `json:"filename"`
	ContentType string    `json:"content_type"`
	Size        int64     `json:"size"`
	MessageID   string    `json:"message_id,omitempty"`
	DateCreated time.Time `json:"date_created"`
}

// Key is where the attachment's file is kept in the file store.
func (a Attachment) Key() string { return "messages/attachments/" + a.ID }

// fileType is one accepted kind of file: its extensions, the content type
// it is served with, and how its content is recognised.
type fileType struct {
	exts        []string
	contentType string
	is          func([]byte) bool
}

func prefix(p string) func([]byte) bool {
	return func(b []byte) bool { return bytes.HasPrefix(b, []byte(p)) }
}

// fileTypes are the accepted attachments. A text is valid UTF-8 with no
// NUL byte, which no binary file of the other kinds is.
var fileTypes = []fileType{
	{exts: []string{"jpg", "jpeg"}, contentType: "image/jpeg", is: prefix("\xff\xd8\xff")},
	{exts: []string{"png"}, contentType: "image/png", is: prefix("\x89PNG\r\n\x1a\n")},
	{exts: []string{"pdf"}, contentType: "application/pdf", is: prefix("%PDF-")},
	{exts: []string{"txt"}, contentType: "text/plain; charset=utf-8", is: func(b []byte) bool {
		return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0
	}},
}

// AcceptedExtensions names the accepted extensions, for messages.
const AcceptedExtensions = "jpg, jpeg, png, pdf or txt"

// Errors of an attachment.
var (
	ErrNoFile = kernel.E(kernel.Invalid, "bad_request", "file is required")
	// ErrAttachmentType and ErrAttachmentSize carry the marketplace's
	// attachment validation names (invalid_extension, invalid_size) as
	// their cause codes.
	ErrAttachmentType      = kernel.E(kernel.Invalid, "bad_request", "file is not an accepted attachment")
	ErrAttachmentSize      = kernel.E(kernel.Invalid, "bad_request", "file is too large")
	ErrAttachmentNotFound  = kernel.E(kernel.NotExist, "not_found", "attachment not found")
	ErrNotYourAttachment   = kernel.E(kernel.Permission, "forbidden", "the caller may not read this attachment")
	ErrAttachmentFileGone  = kernel.E(kernel.NotExist, "not_found", "attachment could not be retrieved from storage")
	ErrAttachmentUnusable  = kernel.E(kernel.Invalid, "bad_request", "attachment cannot be sent")
	ErrTooManyAttachments  = kernel.E(kernel.Invalid, "bad_request", fmt.Sprintf("a message carries at most %d attachments", MaxMessageAttachments))
	ErrMessageTextTooLong  = kernel.E(kernel.Invalid, "bad_request", fmt.Sprintf("The text content is too long, max characters allowed are: %d", MaxMessageText))
	ErrSenderNotCaller     = kernel.E(kernel.Invalid, "bad_request", "from.user_id must be the caller")
	ErrRecipientNotCounter = kernel.E(kernel.Invalid, "bad_request", "to.user_id must be the other party of the pack")
)

// CheckAttachment applies the attachment rules to a file named name and
// returns its extension and the content type it is served with: an
// accepted extension whose content is of that kind, not empty, at most
// MaxAttachmentSize bytes.
func CheckAttachment(name string, data []byte) (ext, contentType string, err error) {
	if strings.TrimSpace(name) == "" || !utf8.ValidString(name) || strings.ContainsRune(name, 0) {
		return "", "", ErrNoFile.With("file name is required").WithCause("file", "the part has no file name")
	}
	ext = strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	for _, ft := range fileTypes {
		for _, e := range ft.exts {
			if e != ext {
				continue
			}
			switch {
			case len(data) == 0:
				return "", "", ErrAttachmentSize.Withf("file %s is empty", name).WithCause("invalid_size", "an attachment has at least one byte")
			case len(data) > MaxAttachmentSize:
				return "", "", ErrAttachmentSize.Withf("file %s is larger than %d bytes, the most an attachment may have", name, MaxAttachmentSize).
					WithCause("invalid_size", fmt.Sprintf("an attachment may have at most %d bytes", MaxAttachmentSize))
			case !ft.is(data):
				return "", "", ErrAttachmentType.Withf("file %s is named %s but its content is not", name, ext).
					WithCause("invalid_extension", "the content does not match the extension")
			}
			return ext, ft.contentType, nil
		}
	}
	return "", "", ErrAttachmentType.Withf("file %s is not an accepted attachment: %s", name, AcceptedExtensions).
		WithCause("invalid_extension", "accepted extensions are "+AcceptedExtensions)
}
