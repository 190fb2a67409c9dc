// Package appsapi serves the apps module: the sandbox collection of
// integrators' applications (docs/sandbox.md, "Applications and notifications").
package appsapi

import (
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/apps"
	"github.com/feria/feria/ports/appsport"
)

// Collections are the apps module's sandbox collections: applications, the
// last key of the fixtures order.
func Collections(svc appsport.Service) []sandboxapi.Collection {
	named := func(a *apps.Application, id int64) { a.ID = id }
	return []sandboxapi.Collection{sandboxapi.ByNumber("applications", "applications", "app_id", named, svc.Put, svc.Application)}
}
