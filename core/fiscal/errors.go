package fiscal

import "github.com/feria/feria/core/kernel"

// Errors of the module, one per row of the spec's fiscal-document table.
var (
	ErrForbidden       = kernel.E(kernel.Permission, "forbidden", "caller is not authorized to access the fiscal documents of this pack")
	ErrSiteUnavailable = kernel.E(kernel.Permission, "forbidden", "fiscal documents are not available on this site")
	ErrFulfillment     = kernel.E(kernel.Permission, "forbidden", "fiscal documents are not available for Chilean packs shipped by fulfillment")
	ErrTokenMissing    = kernel.E(kernel.Permission, "access_token_not_granted", "access token not granted")

	ErrPackID   = kernel.E(kernel.Invalid, "bad_request", "invalid pack id")
	ErrNotAPack = kernel.E(kernel.Invalid, "bad_request", "order is not part of a pack")

	ErrFileMissing       = kernel.E(kernel.Invalid, "bad_request", "file is missing: send it in the multipart part fiscal_document")
	ErrFileEmpty         = kernel.E(kernel.Invalid, "bad_request", "file is empty")
	ErrFilename          = kernel.E(kernel.Invalid, "bad_request", "file name is empty")
	ErrFileType          = kernel.E(kernel.Invalid, "bad_request", "file type not allowed")
	ErrFileSize          = kernel.E(kernel.Invalid, "bad_request", "file exceeds the maximum size")
	ErrTooManyInRequest  = kernel.E(kernel.Invalid, "bad_request", "more than two files in one request")
	ErrLoneXML           = kernel.E(kernel.Invalid, "bad_request", "a lone file must be a PDF; an XML is accepted only with its PDF, or once the pack holds it")
	ErrSameTypeInRequest = kernel.E(kernel.Conflict, "conflict", "more than one file of the same type in one request")
	ErrPackFull          = kernel.E(kernel.Conflict, "conflict", "the pack already has the maximum number of files")
	ErrTypePresent       = kernel.E(kernel.Conflict, "conflict", "the pack already has a file of that type")

	ErrNoDocuments       = kernel.E(kernel.NotExist, "not_found", "the pack has no fiscal documents")
	ErrNoCallerDocuments = kernel.E(kernel.NotExist, "not_found", "the caller has no fiscal documents in the pack")
	ErrFileNotRetrieved  = kernel.E(kernel.NotExist, "not_found", "the file could not be retrieved from storage; retry")
	ErrDocumentID        = kernel.E(kernel.Invalid, "bad_request", "fiscal document id does not exist")

	ErrStorage = kernel.E(kernel.Unavailable, "service_unavailable", "file storage is unavailable; retry later")
)
