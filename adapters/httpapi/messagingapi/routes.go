// Package messagingapi serves the messaging module: a pack's after-sale
// conversation, the messages its parties send and the files they attach.
package messagingapi

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/messagingport"
)

// Routes mounts the conversation at the marketplace's path,
// GET /messages/packs/:pack_id/sellers/:seller_id?tag=post_sale, and at
// feria's first path, /messages/packs/:pack_id, which answers the same. A
// missing token is 403 access_token_not_granted, as on the fiscal routes
// that write the conversation's billing requests.
func Routes(app fiber.Router, svc messagingport.Service, auth httpapi.Auth) {
	authed := auth.Required(httpapi.AuthErrors{Missing: account.ErrTokenNotGranted})
	app.Get("/messages/packs/:pack_id/sellers/:seller_id", authed, conversation(svc))
	app.Post("/messages/packs/:pack_id/sellers/:seller_id", authed, send(svc))
	app.Get("/messages/packs/:pack_id", authed, conversation(svc))
	app.Post("/messages/attachments", authed, upload(svc))
	app.Get("/messages/attachments/:attachment_id", authed, download(svc))
	// A message is the resource a messages notification names: its errors
	// are in shape (a) and a missing token is 401, as on every notified
	// resource (docs/decisions.md).
	app.Get("/messages/:message_id", httpapi.UseShape(httpapi.ShapeDefault), auth.Required(), func(c *fiber.Ctx) error {
		conv, err := svc.Message(c.UserContext(), httpapi.Param(c, "message_id"))
		if err != nil {
			return err
		}
		m := conv.Messages[0]
		return c.JSON(messageOf(conv, m, m.ID == conv.FirstID))
	})
}

// errTag is the error of a tag other than post_sale, the only conversation
// feria keeps.
var errTag = kernel.E(kernel.Invalid, "bad_request", "tag must be post_sale")

// errMarkAsRead is the error of a mark_as_read other than true or false.
var errMarkAsRead = kernel.E(kernel.Invalid, "bad_request", "mark_as_read must be true or false")

// tagAndSeller reads the tag and the seller of a conversation's path.
func tagAndSeller(c *fiber.Ctx) (int64, error) {
	if tag := c.Query("tag"); tag != "" && tag != "post_sale" {
		return 0, errTag.Withf("tag must be post_sale, got %q", tag).WithCause("tag", "tag must be post_sale")
	}
	if raw := c.Params("seller_id"); raw != "" {
		return httpapi.PositiveID("seller_id", raw)
	}
	return 0, nil
}

func conversation(svc messagingport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		seller, err := tagAndSeller(c)
		if err != nil {
			return err
		}
		page, err := httpapi.Paging(c)
		if err != nil {
			return err
		}
		// The marketplace marks the caller's messages read unless told not to.
		mark := true
		switch raw := c.Query("mark_as_read"); raw {
		case "", "true":
		case "false":
			mark = false
		default:
			return errMarkAsRead.Withf("mark_as_read must be true or false, got %q", raw).WithCause("mark_as_read", "mark_as_read must be true or false")
		}
		conv, err := svc.Messages(c.UserContext(), httpapi.Param(c, "pack_id"), seller, page, mark)
		if err != nil {
			return err
		}
		out := answer{Paging: conv.Page, Messages: make([]message, len(conv.Messages))}
		for i, m := range conv.Messages {
			// Oldest first: the first message of the conversation is the
			// first of the first page.
			out.Messages[i] = messageOf(conv, m, conv.Page.Offset+i == 0)
		}
		return c.JSON(out)
	}
}

// sendBody is the body of a message sent, as the marketplace takes it.
type sendBody struct {
	From        party    `json:"from"`
	To          party    `json:"to"`
	Text        string   `json:"text"`
	Attachments []string `json:"attachments"`
}

// send answers the message created, as the conversation shows it.
func send(svc messagingport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		seller, err := tagAndSeller(c)
		if err != nil {
			return err
		}
		var b sendBody
		if err := httpapi.BindJSON(c, &b); err != nil {
			return err
		}
		conv, err := svc.Send(c.UserContext(), messagingport.Send{PackID: httpapi.Param(c, "pack_id"), SellerID: seller,
			FromUserID: b.From.UserID, ToUserID: b.To.UserID, Text: b.Text, Attachments: b.Attachments})
		if err != nil {
			return err
		}
		m := conv.Messages[0]
		return c.Status(fiber.StatusCreated).JSON(messageOf(conv, m, m.ID == conv.FirstID))
	}
}

// Part is the multipart part holding an attachment's file.
const Part = "file"

var errNotMultipart = messaging.ErrNoFile.WithCause(Part, "the body must be multipart/form-data with the file in the part file")

// upload reads the first part named file. The app's body limit has
// already refused a body far beyond messaging.MaxAttachmentSize, unread.
func upload(svc messagingport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		boundary := string(c.Request().Header.MultipartFormBoundary())
		if boundary == "" {
			return errNotMultipart
		}
		mr := multipart.NewReader(bytes.NewReader(c.Body()), boundary)
		for {
			p, err := mr.NextPart()
			if err != nil {
				return errNotMultipart
			}
			if p.FormName() != Part {
				continue
			}
			// One byte past the limit tells a file too large from one at it.
			data, err := io.ReadAll(io.LimitReader(p, messaging.MaxAttachmentSize+1))
			if err != nil {
				return errNotMultipart
			}
			a, err := svc.Upload(c.UserContext(), p.FileName(), data)
			if err != nil {
				return err
			}
			return c.Status(fiber.StatusCreated).JSON(fiber.Map{"id": a.ID})
		}
	}
}

// download sends the file whole, read inside the handler so that a storage
// failure is an error answer and never a truncated 200.
func download(svc messagingport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		d, err := svc.Download(c.UserContext(), httpapi.Param(c, "attachment_id"))
		if err != nil {
			return err
		}
		defer d.Close()
		resp := c.Response()
		resp.ResetBody()
		if _, err := io.Copy(resp.BodyWriter(), d); err != nil {
			resp.ResetBody()
			return messaging.ErrAttachmentFileGone.Wrap(err)
		}
		c.Set(fiber.HeaderContentType, d.Attachment.ContentType)
		c.Set(fiber.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": d.Attachment.Filename}))
		return nil
	}
}

// messageOf is a message of a conversation as the marketplace shows it.
func messageOf(conv messagingport.Conversation, m messaging.Message, first bool) message {
	at := m.DateCreated.UTC()
	out := message{ID: m.ID, SiteID: conv.SiteID, From: party{m.FromUserID}, To: party{m.ToUserID},
		Status: "available", Text: m.Text,
		MessageDate:       dates{Received: at, Available: at, Notified: at, Created: at, Read: m.DateRead},
		MessageModeration: moderation{Status: "clean"},
		MessageResources: []resource{{ID: strconv.FormatInt(conv.PackID, 10), Name: "packs"},
			{ID: strconv.FormatInt(conv.SellerID, 10), Name: "sellers"}},
		ConversationFirstMessage: first,
	}
	for _, a := range m.Attachments {
		out.MessageAttachments = append(out.MessageAttachments, attachment{Filename: a.ID, OriginalFilename: a.Filename,
			Type: a.ContentType, Size: a.Size, DateCreated: a.DateCreated.UTC()})
	}
	return out
}

// attachment is a file a message carries, as the marketplace lists it:
// filename is the id GET /messages/attachments/{id} serves it by.
type attachment struct {
	Filename         string    `json:"filename"`
	OriginalFilename string    `json:"original_filename"`
	Type             string    `json:"type"`
	Size             int64     `json:"size"`
	DateCreated      time.Time `json:"date_created"`
}

// answer is the conversation as the marketplace answers it (its
// conversation_status and message length limits are left out:
// docs/decisions.md).
type answer struct {
	Paging   paging.Page `json:"paging"`
	Messages []message   `json:"messages"`
}

type message struct {
	ID                       string       `json:"id"`
	SiteID                   string       `json:"site_id"`
	From                     party        `json:"from"`
	To                       party        `json:"to"`
	Status                   string       `json:"status"`
	Text                     string       `json:"text"`
	MessageDate              dates        `json:"message_date"`
	MessageModeration        moderation   `json:"message_moderation"`
	MessageAttachments       []attachment `json:"message_attachments"`
	MessageResources         []resource   `json:"message_resources"`
	ConversationFirstMessage bool         `json:"conversation_first_message"`
}

type party struct {
	UserID int64 `json:"user_id"`
}

// dates: a message is received, available and notified when it is created
// (delivery is immediate), and read when its recipient reads the
// conversation with mark_as_read.
type dates struct {
	Received  time.Time  `json:"received"`
	Available time.Time  `json:"available"`
	Notified  time.Time  `json:"notified"`
	Created   time.Time  `json:"created"`
	Read      *time.Time `json:"read"`
}

// moderation: a stored message passed the messaging rules when it was sent.
type moderation struct {
	Status string  `json:"status"`
	Reason *string `json:"reason"`
}

type resource struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}
