package messaging

import (
	"errors"
	"strings"
	"testing"

	"github.com/feria/feria/core/kernel"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		text string
		rule string // "" = allowed
	}{
		{"Hola, necesito tus datos de facturación (CUIT y razón social).", ""},
		{"Please send your tax id. Thanks!", ""},
		{"Send it to me at example.com/upload", ""},
		{"my email is a.b@company.com", ""},
		{"the item is 3<4 cm", ""},
		{"Escribime a <b>mi mail</b>", "html"},
		{"<script>alert(1)</script>", "html"},
		{"a &lt;tag&gt;", "html"},
		{"Seguime en https://www.instagram.com/tienda", "social_network_link"},
		{"Facebook.com/tienda", "social_network_link"},
		{"escribime por wa.me/5491112345678", "social_network_link"},
		{"mirá http://bit.ly/abc123", "shortened_link"},
		{"TINYURL.COM/xyz", "shortened_link"},
		{"notbit.lyrics.com is fine", ""},
		{"sos un idiota", "offensive_language"},
		{"Sos un IMBÉCIL!", "offensive_language"},
		{"estupidez no es insulto", ""},
		{"class idiotic? no: idiotic is not in the list", ""},
	}
	for _, tt := range tests {
		err := Check(tt.text)
		if tt.rule == "" {
			if err != nil {
				t.Errorf("Check(%q) = %v, want nil", tt.text, err)
			}
			continue
		}
		var e *kernel.Error
		if !errors.As(err, &e) || e.Kind != kernel.NotAcceptable || len(e.Causes) != 1 || e.Causes[0].Code != tt.rule {
			t.Errorf("Check(%q) = %#v, want rule %s", tt.text, err, tt.rule)
		}
	}
}

func TestCheckText(t *testing.T) {
	if err := CheckText("  ", MaxBillingText); !errors.Is(err, ErrTextEmpty) {
		t.Errorf("blank: %v", err)
	}
	if err := CheckText(strings.Repeat("ñ", MaxBillingText), MaxBillingText); err != nil {
		t.Errorf("%d characters (twice as many bytes): %v", MaxBillingText, err)
	}
	if err := CheckText(strings.Repeat("a", MaxBillingText+1), MaxBillingText); !errors.Is(err, ErrTextTooLong) {
		t.Errorf("one character too many: %v", err)
	}
	if err := CheckText("bit.ly/x", MaxBillingText); kernel.KindOf(err) != kernel.NotAcceptable {
		t.Errorf("rule: %v", err)
	}
}
