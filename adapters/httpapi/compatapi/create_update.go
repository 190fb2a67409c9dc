package compatapi

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/compat"
)

func (h handlers) create(c *fiber.Ctx) error {
	var b nodesJSON
	if err := httpapi.BindJSON(c, &b); err != nil {
		return err
	}
	item := httpapi.Param(c, "item_id")
	if b.ItemToCopy != nil {
		if err := h.svc.CopyLater(c.UserContext(), item, compat.CopyRequest{ItemID: b.ItemToCopy.ItemID,
			ExtendedInformation: b.ItemToCopy.ExtendedInformation}); err != nil {
			return err
		}
		// "200 with no body": typed text/plain, as docs/openapi.yaml
		// declares it, so that a validator reads the empty body as declared.
		c.Status(fiber.StatusOK).Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		return nil
	}
	n, err := h.svc.Create(c.UserContext(), item, b.nodes())
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"created_compatibilities_count": n})
}

type putJSON struct {
	Create    *nodesJSON `json:"create"`
	Update    *nodesJSON `json:"update"`
	Delete    *nodesJSON `json:"delete"`
	Universal *bool      `json:"universal"`
}

// putEcho keeps the create, update and delete nodes as sent, since the PUT
// answer echoes them back.
type putEcho struct {
	Create json.RawMessage `json:"create,omitempty"`
	Update json.RawMessage `json:"update,omitempty"`
	Delete json.RawMessage `json:"delete,omitempty"`
}

type putAnswer struct {
	putEcho
	Universal bool     `json:"universal"`
	Created   int      `json:"created_compatibilities_count"`
	Updated   int      `json:"updated_compatibilities_count"`
	Deleted   []string `json:"deleted_compatibilities"`
}

func (h handlers) put(c *fiber.Ctx) error {
	var b putJSON
	if err := httpapi.BindJSON(c, &b); err != nil {
		return err
	}
	var echo putEcho
	_ = json.Unmarshal(c.Body(), &echo) // same bytes decoded above
	req := compat.PutRequest{Universal: b.Universal}
	if b.Create != nil && b.Create.ItemToCopy != nil {
		req.CopyFrom = &compat.CopyRequest{ItemID: b.Create.ItemToCopy.ItemID, ExtendedInformation: b.Create.ItemToCopy.ExtendedInformation}
	}
	for _, n := range []struct {
		from *nodesJSON
		to   **compat.Nodes
	}{{b.Create, &req.Create}, {b.Update, &req.Update}, {b.Delete, &req.Delete}} {
		if n.from != nil {
			nodes := n.from.nodes()
			*n.to = &nodes
		}
	}
	res, err := h.svc.Put(c.UserContext(), httpapi.Param(c, "item_id"), req)
	if err != nil {
		return err
	}
	if res.Copied != nil {
		return c.JSON(list(*res.Copied, true))
	}
	deleted := res.Deleted
	if deleted == nil {
		deleted = []string{}
	}
	return c.JSON(putAnswer{putEcho: echo, Universal: res.Universal, Created: res.Created, Updated: res.Updated, Deleted: deleted})
}
