// Package messagingapi serves the messaging module: a pack's after-sale
// conversation.
package messagingapi

import (
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
	app.Get("/messages/packs/:pack_id", authed, conversation(svc))
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

func conversation(svc messagingport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if tag := c.Query("tag"); tag != "" && tag != "post_sale" {
			return errTag.Withf("tag must be post_sale, got %q", tag).WithCause("tag", "tag must be post_sale")
		}
		var seller int64
		if raw := c.Params("seller_id"); raw != "" {
			var err error
			if seller, err = httpapi.PositiveID("seller_id", raw); err != nil {
				return err
			}
		}
		page, err := httpapi.Paging(c)
		if err != nil {
			return err
		}
		conv, err := svc.Messages(c.UserContext(), httpapi.Param(c, "pack_id"), seller, page)
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

// messageOf is a message of a conversation as the marketplace shows it.
func messageOf(conv messagingport.Conversation, m messaging.Message, first bool) message {
	at := m.DateCreated.UTC()
	return message{ID: m.ID, SiteID: conv.SiteID, From: party{m.FromUserID}, To: party{m.ToUserID},
		Status: "available", Text: m.Text,
		MessageDate:       dates{Received: at, Available: at, Notified: at, Created: at},
		MessageModeration: moderation{Status: "clean"},
		MessageResources: []resource{{ID: strconv.FormatInt(conv.PackID, 10), Name: "packs"},
			{ID: strconv.FormatInt(conv.SellerID, 10), Name: "sellers"}},
		ConversationFirstMessage: first,
	}
}

// answer is the conversation as the marketplace answers it (its
// conversation_status and message length limits are left out:
// docs/decisions.md).
type answer struct {
	Paging   paging.Page `json:"paging"`
	Messages []message   `json:"messages"`
}

type message struct {
	ID                       string     `json:"id"`
	SiteID                   string     `json:"site_id"`
	From                     party      `json:"from"`
	To                       party      `json:"to"`
	Status                   string     `json:"status"`
	Text                     string     `json:"text"`
	MessageDate              dates      `json:"message_date"`
	MessageModeration        moderation `json:"message_moderation"`
	MessageAttachments       []any      `json:"message_attachments"`
	MessageResources         []resource `json:"message_resources"`
	ConversationFirstMessage bool       `json:"conversation_first_message"`
}

type party struct {
	UserID int64 `json:"user_id"`
}

// dates: a message is received, available and notified when it is created
// (delivery is immediate); feria does not track reading.
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
