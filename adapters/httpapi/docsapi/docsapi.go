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

// Docs is the contract in its three forms: the YAML and the JSON built at
// start-up, the page on its first request.
type Docs struct {
	yaml, json []byte
	// page is the reference page, rendered once when first asked for: it
	// holds the whole viewer (1.1 MB), which a process that never serves
	// /docs should neither copy into its heap nor read from its binary.
	page func() ([]byte, error)
}

// New converts spec (OpenAPI YAML) to JSON; a document that does not
// parse is an error here, at start-up, not on a request.
func New(spec []byte) (*Docs, error) {
	var v any
	if err := yaml.Unmarshal(spec, &v); err != nil {
		return nil, fmt.Errorf("docsapi: openapi.yaml: %w", err)
	}
	js, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("docsapi: openapi.yaml to JSON: %w", err)
	}
	return &Docs{yaml: spec, json: js, page: sync.OnceValues(func() ([]byte, error) { return render(js) })}, nil
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

// JSON is the document as JSON.
func (d *Docs) JSON() []byte { return d.json }

// Routes serves GET /openapi.yaml, /openapi.json and /docs.
func (d *Docs) Routes(app fiber.Router) {
	app.Get("/openapi.yaml", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, "application/yaml")
		return c.Send(d.yaml)
	})
	app.Get("/openapi.json", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(d.json)
	})
	app.Get("/docs", func(c *fiber.Ctx) error {
		page, err := d.page()
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
		return c.Send(page)
	})
}

// pageTemplate is Redoc's standalone page, with the spec object given to
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
<script>Redoc.init({{.Spec}}, {hideDownloadButton: false, expandResponses: "200,201,204"}, document.getElementById("redoc"));</script>
</body>
</html>
`))
