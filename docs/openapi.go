// Package docs holds feria's API contract, docs/openapi.yaml, embedded so
// that the binary serves it (adapters/httpapi/docsapi) and the tests
// validate every exchange against the same bytes.
package docs

import _ "embed"

// OpenAPI is docs/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
