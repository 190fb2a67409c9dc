package controlapi

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/feria/feria/core/control"
)

// notPublic are the paths of the contract that are not the public API: the
// coverage leaves them out (docs/sandbox.md, "Coverage").
var notPublic = []string{"/sandbox", "/health", "/metrics", "/admin", "/docs", "/openapi.", "/console"}

var methods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "patch": true, "head": true, "options": true}

// Operations reads the public API's operations from the contract document
// (OpenAPI, YAML), in the document's order, each with the area its first
// tag names (the tag's x-area).
func Operations(doc []byte) ([]control.Operation, error) {
	var d struct {
		Tags []struct {
			Name string `yaml:"name"`
			Area string `yaml:"x-area"`
		} `yaml:"tags"`
		Paths yaml.Node `yaml:"paths"`
	}
	if err := yaml.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("controlapi: the contract document: %w", err)
	}
	areas := map[string]string{}
	for _, t := range d.Tags {
		areas[t.Name] = t.Area
	}
	var out []control.Operation
	for i := 0; i+1 < len(d.Paths.Content); i += 2 {
		path, item := d.Paths.Content[i].Value, d.Paths.Content[i+1]
		if !public(path) {
			continue
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			method := item.Content[j].Value
			if !methods[method] {
				continue
			}
			var op struct {
				Tags []string `yaml:"tags"`
			}
			if err := item.Content[j+1].Decode(&op); err != nil {
				return nil, fmt.Errorf("controlapi: %s %s: %w", method, path, err)
			}
			if len(op.Tags) == 0 || areas[op.Tags[0]] == "" {
				return nil, fmt.Errorf("controlapi: %s %s: no tag with an x-area", method, path)
			}
			out = append(out, control.Operation{Method: strings.ToUpper(method), Path: path, Area: areas[op.Tags[0]]})
		}
	}
	return out, nil
}

func public(path string) bool {
	for _, p := range notPublic {
		if path == p || strings.HasPrefix(path, p+"/") || (strings.HasSuffix(p, ".") && strings.HasPrefix(path, p)) {
			return false
		}
	}
	return true
}
