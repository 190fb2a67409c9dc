package brands_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/core/kernel"
)

func TestParseID(t *testing.T) {
	tests := []struct {
		raw     string
		id      int64
		message string
	}{
		{"5001", 5001, ""},
		{"0", 0, ""},
		{"99999999999999999999", 0, ""},
		{"", 0, `brand_id must contain only digits, got ""`},
		{"50a1", 0, `brand_id must contain only digits, got "50a1"`},
		{"-5", 0, `brand_id must contain only digits, got "-5"`},
		{"５", 0, `brand_id must contain only digits, got "５"`},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			id, err := brands.ParseID("brand_id", tt.raw)
			if tt.message == "" {
				if err != nil || id != tt.id {
					t.Fatalf("ParseID(%q) = %d, %v; want %d", tt.raw, id, err, tt.id)
				}
				return
			}
			var e *kernel.Error
			if !errors.As(err, &e) || e.Kind != kernel.Invalid || e.Code != "invalid_parameter" || e.Message != tt.message {
				t.Fatalf("ParseID(%q) err = %v, want invalid_parameter %q", tt.raw, err, tt.message)
			}
		})
	}
}

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func brand(id int64, site string) brands.Brand {
	return brands.Brand{ID: id, SiteID: site, Name: "Suspensión  Pérez", FantasyName: "Pérez", Type: "normal", Status: "active",
		RelevancePosition: 1, Users: []int64{123}, DateCreated: t0, LastUpdated: t0}
}

func TestAnswerOf(t *testing.T) {
	u := brands.Member{CustID: 123, SiteID: "MLA", UserType: "brand"}
	tests := []struct {
		name  string
		bound []brands.Brand
		want  string
	}{
		{"unlinked", nil, `{"status":"UNLINKED","cust_id":123,"site_id":"MLA","user_type":"brand","tags":[],"brands":[]}`},
		{"only the user's site", []brands.Brand{brand(5001, "MLA"), brand(5002, "MLB")},
			`{"status":"LINKED","cust_id":123,"site_id":"MLA","user_type":"brand","tags":[],"brands":[` +
				`{"site_id":"MLA","official_store_id":5001,"name":"Suspensión  Pérez","type":"normal","relevance_position":1,"status":"active",` +
				`"fantasy_name":"Pérez","date_created":"2026-11-20T12:00:00Z","return_policy":null,"landing_permalink":"https://www.mercadolibre.com.ar/tienda/suspension-perez","pictures":[],"tags":[],` +
				`"categories_ids":[],"main_categories":[],"permalink":"https://tienda.mercadolibre.com.ar/suspension-perez","normalized_name":"Suspension Perez","last_updated":"2026-11-20T12:00:00Z"}]}`},
		{"brands of another site only", []brands.Brand{brand(5002, "MLB")}, `{"status":"UNLINKED","cust_id":123,"site_id":"MLA","user_type":"brand","tags":[],"brands":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := json.Marshal(brands.AnswerOf(u, tt.bound))
			if string(b) != tt.want {
				t.Errorf("\n got %s\nwant %s", b, tt.want)
			}
		})
	}
}

func TestDetailOf(t *testing.T) {
	b := brand(5001, "MLA")
	b.Pictures = []brands.Picture{{ID: "p1", Name: "logo", URL: "http://example.invalid/l.png", Size: "120x120"}}
	b.Boost = brands.Boost{IsActive: true, LastUpdate: &t0}
	got, _ := json.Marshal(brands.DetailOf(b, []brands.Member{{CustID: 123, SiteID: "MLA", UserType: "brand"}}))
	want := `{"tags":[],"official_store_id":5001,"categories_ids":[],"fantasy_name":"Pérez",` +
		`"users":[{"cust_id":123,"tags":[],"site_id":"MLA","user_type":"brand"}],"site_id":"MLA","status":"active","name":"Suspensión  Pérez",` +
		`"date_created":"2026-11-20T12:00:00Z","pictures":[{"id":"p1","name":"logo","secure_url":null,"url":"http://example.invalid/l.png","size":"120x120"}],` +
		`"boost":{"is_active":true,"last_update":"2026-11-20T12:00:00Z"},"relevance_position":1}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if err := brands.CheckOfSite(b, "MLA"); err != nil {
		t.Errorf("brand of the site: %v", err)
	}
	var e *kernel.Error
	if err := brands.CheckOfSite(b, "MLB"); !errors.As(err, &e) || e.Code != "B00001" || e.Kind != kernel.NotExist || e.Message != "brand 5001 not found for site MLB" {
		t.Errorf("brand of another site: %v", err)
	}
}

func TestLinks(t *testing.T) {
	tests := []struct {
		name           string
		b              brands.Brand
		perma, landing string
	}{
		{"built from site and name", brands.Brand{SiteID: "MLA", Name: " Suspensión  Pérez & Hijos "},
			"https://tienda.mercadolibre.com.ar/suspension-perez-hijos", "https://www.mercadolibre.com.ar/tienda/suspension-perez-hijos"},
		{"Brazil's host and word", brands.Brand{SiteID: "MLB", Name: "Loja Ação"},
			"https://tienda.mercadolivre.com.br/loja-acao", "https://www.mercadolivre.com.br/loja/loja-acao"},
		{"stored ones kept", brands.Brand{SiteID: "MLM", Name: "X", Permalink: "http://a.example/x", LandingPermalink: "http://a.example/l"},
			"http://a.example/x", "http://a.example/l"},
		{"one stored, the other built", brands.Brand{SiteID: "MLC", Name: "Zeta 9", Permalink: "http://a.example/x"},
			"http://a.example/x", "https://www.mercadolibre.cl/tienda/zeta-9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, l := brands.Links(tt.b)
			if p != tt.perma || l != tt.landing {
				t.Errorf("Links = %q, %q; want %q, %q", p, l, tt.perma, tt.landing)
			}
		})
	}
}
