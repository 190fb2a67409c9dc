package compatapi

import (
	"testing"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/compat"
)

// FuzzNodesBody: any body of a compatibilities POST, PUT node or summary
// either is refused when decoded or reaches the rules (nodes, selectors,
// restrictions, the exception comment) without a panic.
func FuzzNodesBody(f *testing.F) {
	for _, s := range []string{
		`{"products":[{"id":"MLA101","note":"solo 5 puertas","restrictions":[{"attribute_id":"POSITION","attribute_values":[{"values":[{"value_id":"1"}]}]}]}]}`,
		`{"products_group":[{"ids":["MLA101","MLA102"]}]}`,
		`{"products_families":[{"domain_id":"MLA-CARS_AND_VANS","attributes":[{"id":"BRAND","value_ids":["9909"]},{"id":"MODEL","value_names":["Ka"]}]}]}`,
		`{"universal":true}`, `{"universal":true,"products":[{"id":"MLA1"}]}`, `{"item_to_copy":{"item_id":"MLA1","extended_information":true}}`,
		`{"create":{"products":[{"id":"MLA1"}]},"delete":{"products":[{"id":"MLA2"}]}}`, `{"comment":"nada"}`, `{}`, `[]`, `null`,
		`{"products":[{"id":"MLA1","creation_source":"ITEM_COPY"}]}`, `{"products":[{"id":"\u0000"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var n nodesJSON
		if err := httpapi.DecodeJSON(body, &n); err == nil {
			_ = compat.CheckNodes(n.nodes(), "")
			for _, fam := range n.ProductsFamilies {
				_ = compat.CheckSelector(fam.selector(), "products_families")
			}
		}
		var put putJSON
		if err := httpapi.DecodeJSON(body, &put); err == nil {
			for _, node := range []*nodesJSON{put.Create, put.Update, put.Delete} {
				if node != nil {
					_ = compat.CheckNodes(node.nodes(), "")
				}
			}
		}
		var ex struct {
			Comment *string `json:"comment"`
		}
		if err := httpapi.DecodeJSON(body, &ex); err == nil {
			_ = compat.CheckComment(ex.Comment)
		}
	})
}
