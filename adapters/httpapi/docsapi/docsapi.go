// Package docsapi serves feria's API contract: docs/openapi.yaml as YAML
// and as JSON, and an API reference page rendered from it by Redoc, whose
// standalone bundle is embedded (viewer/, rebuilt from npm by
// viewer/build.sh), so that the page works with no network.
package docsapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"sync"

	"github.com/gofiber/fiber/v2"
	"go.yaml.in/yaml/v3"
)

// redoc is the viewer, Redoc's standalone bundle at the version pinned in
// viewer/package-lock.json.
//
//go:embed viewer/redoc.standalone.js
var redoc []byte

// Docs is the contract in its three forms: the YAML as embedded, the JSON
// and the page each built once, on its first request. Both hold what a
// process that never serves them should not pay for at start-up: the JSON
// is a parse of the whole document (5 MB of allocations), and the page
// holds the whole viewer (1.1 MB), copied from the binary.
type Docs struct {
	yaml       []byte
	json, page func() ([]byte, error)
}

// New serves spec (OpenAPI YAML). The document is fixed at build time and
// parsed by the tests, so a document that does not convert is a build
// defect; a binary that has one answers its errors on these routes only.
func New(spec []byte) *Docs {
	d := &Docs{yaml: spec}
	d.json = sync.OnceValues(func() ([]byte, error) { return toJSON(spec) })
	d.page = sync.OnceValues(func() ([]byte, error) {
		js, err := viewerCopy(spec)
		if err != nil {
			return nil, err
		}
		return render(js)
	})
	return d
}

// toJSON converts the YAML document to JSON.
func toJSON(spec []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(spec, &v); err != nil {
		return nil, fmt.Errorf("docsapi: openapi.yaml: %w", err)
	}
	js, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("docsapi: openapi.yaml to JSON: %w", err)
	}
	return js, nil
}

// viewerCopy is the document as the page shows it: without info.version,
// which Redoc would print after the title as "feria (1)"; the page's
// download button fetches /openapi.yaml, the document whole.
func viewerCopy(spec []byte) ([]byte, error) {
	var v map[string]any
	if err := yaml.Unmarshal(spec, &v); err != nil {
		return nil, fmt.Errorf("docsapi: openapi.yaml: %w", err)
	}
	if info, ok := v["info"].(map[string]any); ok {
		delete(info, "version")
	}
	js, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("docsapi: openapi.yaml to JSON: %w", err)
	}
	return js, nil
}

// render builds the reference page. The document and the viewer go
// inline: one request shows the page, and nothing is fetched from anywhere
// else.
func render(js []byte) ([]byte, error) {
	var page bytes.Buffer
	page.Grow(len(redoc) + len(js) + 1024)
	err := pageTemplate.Execute(&page, struct {
		Spec, Redoc template.JS
	}{Spec: template.JS(js), Redoc: template.JS(redoc)})
	if err != nil {
		return nil, fmt.Errorf("docsapi: page: %w", err)
	}
	return page.Bytes(), nil
}

// Routes serves GET /openapi.yaml, /openapi.json and /docs.
func (d *Docs) Routes(app fiber.Router) {
	app.Get("/openapi.yaml", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, "application/yaml")
		return c.Send(d.yaml)
	})
	app.Get("/openapi.json", send(d.json, fiber.MIMEApplicationJSON))
	app.Get("/docs", send(d.page, fiber.MIMETextHTMLCharsetUTF8))
}

// send answers what built builds, as contentType.
func send(built func() ([]byte, error), contentType string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		b, err := built()
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderContentType, contentType)
		return c.Send(b)
	}
}

// pageTemplate is Redoc's standalone page, with the document object given to
// Redoc.init rather than a URL to fetch.
var pageTemplate = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>feria API reference</title>
<style>body{margin:0;padding:0}</style>
</head>
<body>
<div id="redoc"></div>
<script>{{.Redoc}}</script>
<script>Redoc.init({{.Spec}}, {hideDownloadButton: false, downloadDefinitionUrl: "/openapi.yaml", expandResponses: "200,201,204"}, document.getElementById("redoc"));</script>
</body>
</html>
`))
