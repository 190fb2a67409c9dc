package compatapi

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
)

type dumpEntry struct {
	DomainID        string          `json:"domain_id"`
	Main            bool            `json:"main"`
	Compatibilities json.RawMessage `json:"compatibilities"`
}

func (h handlers) dump(c *fiber.Ctx) error {
	ds, err := h.svc.Dump(c.UserContext(), httpapi.Param(c, "site_id"))
	if err != nil {
		return err
	}
	out := make([]dumpEntry, len(ds))
	for i, d := range ds {
		out[i] = dumpEntry{DomainID: d.ID, Main: d.Main, Compatibilities: dumpLinks(d.Raw)}
	}
	return c.JSON(out)
}

// dumpLinks is a stored compatibilities array as the dump shows it: always
// an array, without restriction_values, the sandbox's feed of the
// restriction values endpoint that the contract's dump entry does not list.
func dumpLinks(raw []byte) json.RawMessage {
	var links []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &links); err != nil || links == nil {
		return json.RawMessage("[]")
	}
	for _, l := range links {
		delete(l, "restriction_values")
	}
	b, err := json.Marshal(links)
	if err != nil {
		return json.RawMessage("[]")
	}
	return b
}

func (h handlers) countFamily(c *fiber.Ctx) error {
	var b selectorJSON
	if err := httpapi.BindJSON(c, &b); err != nil {
		return err
	}
	n, err := h.svc.CountFamily(c.UserContext(), b.selector())
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"count": n})
}

func (h handlers) restrictionValues(c *fiber.Ctx) error {
	vs, err := h.svc.RestrictionValues(c.UserContext(), httpapi.Query(c, "main_domain_id"), httpapi.Query(c, "secondary_domain_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"attributes_values": vs})
}
