package compat

import (
	"errors"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"strings"
	"testing"
)

func TestIDs(t *testing.T) {
	for _, c := range []struct {
		id           string
		product, dom bool
	}{
		{"MLA101", true, false}, {"MLB1", true, false}, {"MLA", false, false}, {"XXX1", false, false}, {"MLA1a", false, false},
		{"MLA-CARS_AND_VANS", false, true}, {"MLA-", false, false}, {"XXX-CARS", false, false}, {"CARS", false, false},
	} {
		if got := ValidProductID(c.id); got != c.product {
			t.Errorf("ValidProductID(%q) = %v", c.id, got)
		}
		if got := ValidDomainID(c.id); got != c.dom {
			t.Errorf("ValidDomainID(%q) = %v", c.id, got)
		}
	}
}

func TestCheckComment(t *testing.T) {
	for _, c := range []struct {
		comment *string
		want    error
	}{
		{nil, ErrCommentMissing}, {kerneltest.Ptr(""), ErrCommentMissing}, {kerneltest.Ptr(" \t"), ErrCommentMissing},
		{kerneltest.Ptr("x"), nil}, {kerneltest.Ptr(strings.Repeat("é", 255)), nil}, {kerneltest.Ptr(strings.Repeat("é", 256)), ErrCommentTooLong},
	} {
		err := CheckComment(c.comment)
		if (c.want == nil) != (err == nil) || (err != nil && err.(interface{ Error() string }).Error() == "") {
			t.Errorf("CheckComment(%v) = %v, want %v", c.comment, err, c.want)
		}
	}
}

func TestReputation(t *testing.T) {
	for claims, want := range map[int]string{0: LevelGreen, 2: LevelGreen, 3: LevelRed, 10: LevelRed} {
		if got := ReputationOf(claims); got.Level != want || got.TotalClaims != claims {
			t.Errorf("ReputationOf(%d) = %+v", claims, got)
		}
	}
}

func TestCheckNodes(t *testing.T) {
	for _, c := range []struct {
		name  string
		n     Nodes
		cause string
	}{
		{"ok", Nodes{Products: []ProductEntry{{ID: "MLA1"}}, Families: []FamilyEntry{{Selector: Selector{DomainID: "MLA-X", Attributes: []SelectorAttr{{ID: "B", ValueIDs: []string{"1"}}}}}}}, ""},
		{"no id", Nodes{Products: []ProductEntry{{}}}, "products.id"},
		{"bad id", Nodes{Products: []ProductEntry{{ID: "1"}}}, "products.id"},
		{"bad source", Nodes{Products: []ProductEntry{{ID: "MLA1", CreationSource: CreationCopy}}}, "products.creation_source"},
		{"empty group", Nodes{Groups: []GroupEntry{{}}}, "products_group.ids"},
		{"no attributes", Nodes{Families: []FamilyEntry{{Selector: Selector{DomainID: "MLA-X"}}}}, "products_families.attributes"},
		{"no value", Nodes{Families: []FamilyEntry{{Selector: Selector{DomainID: "MLA-X", Attributes: []SelectorAttr{{ID: "B"}}}}}}, "products_families.attributes.B"},
	} {
		err := CheckNodes(c.n, "")
		var got string
		if err != nil {
			got = err.(*kernel.Error).Causes[0].Code
		}
		if got != c.cause {
			t.Errorf("%s: cause %q, want %q (%v)", c.name, got, c.cause, err)
		}
	}
}

func TestCheckRestrictions(t *testing.T) {
	link := DomainLink{CompatibleDomainID: "MLA-CARS", RestrictionValues: []RestrictionValue{
		{AttributeID: "SIDE", Values: []ValueEntry{{ValueID: "9", ValueName: "Left"}}},
		{AttributeID: "POSITION", Values: []ValueEntry{{ValueID: "1", ValueName: "Delantera"}, {ValueID: "2", ValueName: "Trasera"}}}}}
	rs, err := CheckRestrictions([]Restriction{{AttributeID: "POSITION", AttributeValues: []RestrictionSet{{Values: []RestrictionVal{{ValueName: "TRASERA"}}}}}}, link)
	if err != nil || rs[0].AttributeCode != 2 || rs[0].AttributeValues[0].Values[0] != (RestrictionVal{ValueID: "2", ValueName: "Trasera", ValueCode: 2}) {
		t.Fatalf("restrictions = %+v, %v", rs, err)
	}
	// A restriction without attribute_id is incomplete, as any other
	// request missing a required field; one the domain does not know is a
	// bad restriction.
	for _, c := range []struct {
		bad  Restriction
		want error
	}{
		{Restriction{AttributeID: ""}, ErrIncomplete},
		{Restriction{AttributeID: "COLOR"}, ErrBadRestriction},
		{Restriction{AttributeID: "POSITION", AttributeValues: []RestrictionSet{{Values: []RestrictionVal{{ValueID: "7"}}}}}, ErrBadRestriction},
	} {
		if _, err := CheckRestrictions([]Restriction{c.bad}, link); !errors.Is(err, c.want) {
			t.Errorf("CheckRestrictions(%+v) = %v, want %v", c.bad, err, c.want)
		}
	}
}
