package catalog

// ItemView is the item resource of the public API: the stored item with the
// computed tags and HAS_COMPATIBILITIES attribute, and the shipping object
// in the form the contract shows.
type ItemView struct {
	Item
	Shipping ShippingView `json:"shipping"`
}

// ShippingView is the shipping object inside an item: the stored one,
// written with free_methods in place of methods when free_shipping is true
// (and the other way round). Exactly one of the two is set, so the answer
// names one; a plain struct rather than a MarshalJSON method, which made
// encoding/json marshal it apart and then compact the bytes again on every
// item read.
type ShippingView struct {
	Mode         string        `json:"mode"`
	LocalPickUp  bool          `json:"local_pick_up"`
	FreeShipping bool          `json:"free_shipping"`
	LogisticType string        `json:"logistic_type"`
	Dimensions   *string       `json:"dimensions"`
	Methods      *[]any        `json:"methods,omitempty"`
	FreeMethods  *[]FreeMethod `json:"free_methods,omitempty"`
	Costs        []any         `json:"costs"`
	Tags         []string      `json:"tags"`
}

// hasCompatibilitiesName is the attribute's name as the Argentine site
// shows it; the service answers it on every site.
const hasCompatibilitiesName = "Tiene compatibilidades"

// View builds the public item resource from the stored item and its facts.
func View(it Item, f Facts) ItemView {
	v := ItemView{Item: it}
	tags := make([]string, 0, len(it.Tags)+2)
	for _, t := range it.Tags {
		if !IsComputedTag(t) {
			tags = append(tags, t)
		}
	}
	if f.Incomplete {
		tags = append(tags, TagIncomplete)
	}
	if f.Pending {
		tags = append(tags, TagPending)
	}
	v.Tags = tags
	attrs := make([]ItemAttribute, 0, len(it.Attributes)+1)
	for _, a := range it.Attributes {
		if a.ID != AttrHasCompatibilities {
			attrs = append(attrs, a)
		}
	}
	if f.HasCompatibilities || f.Universal {
		yes := "Sí"
		attrs = append(attrs, ItemAttribute{
			ID: AttrHasCompatibilities, Name: hasCompatibilitiesName, ValueName: &yes,
			Values: []AttributeValue{{Name: &yes}}, ValueType: "boolean",
		})
	}
	v.Attributes = attrs
	s := it.Shipping
	sv := ShippingView{Mode: s.Mode, LocalPickUp: s.LocalPickUp, FreeShipping: s.FreeShipping,
		LogisticType: s.LogisticType, Dimensions: s.Dimensions, Costs: orEmpty(s.Costs), Tags: s.Tags}
	sv.Tags = make([]string, 0, len(s.Tags)+1)
	for _, t := range s.Tags {
		if t != TagSelfServiceIn {
			sv.Tags = append(sv.Tags, t)
		}
	}
	if f.SelfService {
		sv.Tags = append(sv.Tags, TagSelfServiceIn)
	}
	if s.FreeShipping {
		free := s.FreeMethods
		if free == nil {
			free = []FreeMethod{}
		}
		sv.FreeMethods = &free
	} else {
		methods := orEmpty(s.Methods)
		sv.Methods = &methods
	}
	v.Shipping = sv
	return v
}

func orEmpty(a []any) []any {
	if a == nil {
		return []any{}
	}
	return a
}
