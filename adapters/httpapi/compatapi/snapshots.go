package compatapi

import (
	"encoding/json"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/core/compat"
)

type snapshotJSON struct {
	ItemID               string         `json:"item_id"`
	SellerID             string         `json:"seller_id"`
	ProductID            string         `json:"product_id,omitempty"`
	UserSelection        *selectionJSON `json:"user_selection,omitempty"`
	CompatibilityStatus  statusJSON     `json:"compatibility_status"`
	CompatibilityDeleted bool           `json:"compatibility_deleted"`
	DateCreated          string         `json:"date_created"`
	DateUpdated          string         `json:"date_updated"`
}

type selectionJSON struct {
	LabelValues json.RawMessage `json:"label_values"`
}

type statusJSON struct {
	Compatibility   string                `json:"compatibility"`
	CompatibilityID string                `json:"compatibility_id,omitempty"`
	Note            *string               `json:"note,omitempty"`
	Restrictions    *[]compat.Restriction `json:"restrictions,omitempty"`
}

func (h handlers) snapshot(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("order_id"), 10, 64)
	if err != nil || id <= 0 {
		return compat.ErrSnapshotNotFound.WithCause("order_id", "order id must be a positive integer")
	}
	s, err := h.svc.Snapshot(c.UserContext(), id)
	if err != nil {
		return err
	}
	out := snapshotJSON{ItemID: s.ItemID, SellerID: strconv.FormatInt(s.SellerID, 10), ProductID: s.ProductID,
		CompatibilityStatus:  statusJSON{Compatibility: s.Status, CompatibilityID: s.CompatibilityID},
		CompatibilityDeleted: s.CompatibilityDeleted,
		DateCreated:          s.DateCreated.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		DateUpdated:          s.DateUpdated.UTC().Format("2006-01-02T15:04:05.000Z07:00")}
	// Only product_id is "absent when none": user_selection is always an
	// object, with empty label_values when the buyer chose no vehicle.
	out.UserSelection = &selectionJSON{LabelValues: json.RawMessage("[]")}
	if len(s.UserSelection) > 0 {
		out.UserSelection.LabelValues = json.RawMessage(s.UserSelection)
	}
	// The contract lists compatibility_id for CONFIRMED and note/restrictions
	// for NO_USER_SELECTION only; the other statuses do not carry them.
	if s.Status != compat.Confirmed {
		out.CompatibilityStatus.CompatibilityID = ""
	}
	if s.Status == compat.NoUserSelection {
		note, rs := s.Note, s.Restrictions
		if rs == nil {
			rs = []compat.Restriction{}
		}
		out.CompatibilityStatus.Note, out.CompatibilityStatus.Restrictions = &note, &rs
	}
	return c.JSON(out)
}
