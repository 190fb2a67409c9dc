package fiscal

import (
	"fmt"
	"strings"

	"github.com/feria/feria/core/kernel"
)

// Errors of the module, one per documented answer of the contract's fiscal documents.
// Where the marketplace documents a row's message, the sentinel carries it
// word for word (the table of docs/messages.md names each); a message
// naming a pack, a seller, a type or a document is built by the functions
// below from the same text.
var (
	ErrForbidden       = kernel.E(kernel.Permission, "forbidden", "Access Denied, you are not authorized.")
	ErrSiteUnavailable = kernel.E(kernel.Permission, "forbidden", "Access Denied, this API is not available on your site: MLB")
	ErrFulfillment     = kernel.E(kernel.Permission, "forbidden", "fiscal documents are not available for Chilean packs shipped by fulfillment")

	ErrPackID   = kernel.E(kernel.Invalid, "bad_request", "pack.id must be numeric and not empty")
	ErrNotAPack = kernel.E(kernel.Invalid, "bad_request", "The order belong to a pack/purchase")

	ErrFileMissing       = kernel.E(kernel.Invalid, "bad_request", "File cannot be empty")
	ErrFileEmpty         = kernel.E(kernel.Invalid, "bad_request", "File cannot be empty")
	ErrFilename          = kernel.E(kernel.Invalid, "bad_request", "Filename cannot be empty")
	ErrFileType          = kernel.E(kernel.Invalid, "bad_request", "file type not allowed")
	ErrFileSize          = kernel.E(kernel.Invalid, "bad_request", "File Not allowed, exceeds maximum size")
	ErrTooManyInRequest  = kernel.E(kernel.Invalid, "bad_request", "Files Not allowed, you can upload only two files, one of each type")
	ErrLoneXML           = kernel.E(kernel.Invalid, "bad_request", "a lone file must be a PDF; an XML is accepted only with its PDF, or once the pack holds it")
	ErrSameTypeInRequest = kernel.E(kernel.Conflict, "conflict", "more than one file of the same type in one request")
	ErrPackFull          = kernel.E(kernel.Conflict, "conflict", "the pack already has the maximum number of files")
	ErrTypePresent       = kernel.E(kernel.Conflict, "conflict", "the pack already has a file of that type")

	ErrNoDocuments       = kernel.E(kernel.NotExist, "not_found", "the pack has no fiscal documents")
	ErrNoCallerDocuments = kernel.E(kernel.NotExist, "not_found", "the caller has no fiscal documents in the pack")
	ErrNothingToDelete   = kernel.E(kernel.NotExist, "not_found", "the pack has no fiscal document of the caller to delete")
	ErrFileNotRetrieved  = kernel.E(kernel.NotExist, "not_found", "the file could not be retrieved from storage; retry")
	ErrDocumentID        = kernel.E(kernel.Invalid, "bad_request", "fiscal document id does not exist")

	ErrStorage = kernel.E(kernel.Unavailable, "service_unavailable", "file storage is unavailable; retry later")
)

// The documented messages that name what they refuse.

// SiteUnavailable is ErrSiteUnavailable naming the site refused.
func SiteUnavailable(site string) error {
	return ErrSiteUnavailable.Withf("Access Denied, this API is not available on your site: %s", site)
}

// DocumentForbidden is ErrForbidden of a download.
func DocumentForbidden(userID int64, documentID string) error {
	return ErrForbidden.Withf("Access Denied for user with id : %d to the fiscal_document with id: %s.", userID, documentID)
}

// InvalidPackID is ErrPackID of a zero or negative pack id.
func InvalidPackID() *kernel.Error { return ErrPackID.With("pack.id is invalid") }

// TypeNotAllowed is ErrFileType of a declared type that is not accepted.
func TypeNotAllowed(contentType string) *kernel.Error {
	return ErrFileType.Withf("File type: %s is not allowed", contentType)
}

// SameTypeInRequest is ErrSameTypeInRequest of two files of type t.
func SameTypeInRequest(t FileType) error {
	return ErrSameTypeInRequest.Withf("Files Not allowed, you can upload only one file of type: %s", t.ContentType())
}

// PackFull is ErrPackFull of the pack and the uploading seller.
func PackFull(packID, sellerID int64) error {
	return ErrPackFull.Withf("File Not allowed, the max amount of files already exist for the pack: %d and seller: %d", packID, sellerID)
}

// TypePresent is ErrTypePresent of the pack, the uploading seller and the
// type already there.
func TypePresent(packID, sellerID int64, t FileType) error {
	return ErrTypePresent.Withf("File Not allowed, a file already exists for the pack: %d and seller: %d of the type: %s", packID, sellerID, t.ContentType())
}

// NoDocuments is ErrNoDocuments of the pack.
func NoDocuments(packID int64) error {
	return ErrNoDocuments.Withf("The pack_fiscal_document with pack_id: %d does not exist", packID)
}

// NoCallerDocuments is ErrNoCallerDocuments of the pack and the caller.
func NoCallerDocuments(packID, userID int64) error {
	return ErrNoCallerDocuments.Withf("The pack_fiscal_document with pack_id: %d does not have any fiscal_document attached for the user_id: %d", packID, userID)
}

// NothingToDelete is ErrNothingToDelete of the pack.
func NothingToDelete(packID int64) error {
	return ErrNothingToDelete.Withf("Cannot delete. The pack: %d doesn't have a fiscal_document attached", packID)
}

// DocumentNotFound is ErrDocumentID of the id asked for.
func DocumentNotFound(documentID string) *kernel.Error {
	return ErrDocumentID.Withf("The fiscal_document with id: %s does not exist", documentID)
}

// FileNotRetrieved is ErrFileNotRetrieved of the id asked for.
func FileNotRetrieved(documentID string) *kernel.Error {
	return ErrFileNotRetrieved.Withf("The fiscal_document with id: %s could not be retrieved from storage", documentID)
}

// Deleted is the message of a delete answer: the documented sentences for
// one document and for several.
func Deleted(ids []string) string {
	if len(ids) == 1 {
		return fmt.Sprintf(`The fiscal_document with "id" : %s was deleted`, ids[0])
	}
	return fmt.Sprintf("The fiscal_documents with the following ids: %s were deleted", strings.Join(ids, ", "))
}
