// Package worldsapi serves the worlds' lifecycle under /sandbox/worlds, on
// the default world's sandbox (its key only).
package worldsapi

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/worlds"
	"github.com/feria/feria/ports/worldsport"
)

// World is a world as the routes answer it.
type World struct {
	Name       string `json:"name"`
	SandboxKey string `json:"sandbox_key"`
	BasePath   string `json:"base_path"`
	CreatedAt  string `json:"created_at"`
	LastUsedAt string `json:"last_used_at"`
}

// stamp is the layout of the times answered: UTC, milliseconds.
const stamp = "2006-01-02T15:04:05.000Z"

func view(w worlds.World) World {
	return World{Name: w.Name, SandboxKey: w.SandboxKey, BasePath: worlds.BasePath(w.Name),
		CreatedAt: w.CreatedAt.UTC().Format(stamp), LastUsedAt: w.LastUsedAt.UTC().Format(stamp)}
}

// Routes mounts the four routes on r, the sandbox's router (behind its key).
func Routes(r fiber.Router, svc worldsport.Service) {
	r.Put("/worlds/:name", func(c *fiber.Ctx) error {
		var body struct {
			SandboxKey *string `json:"sandbox_key"`
		}
		// An empty body is {}: `curl -X PUT` needs no -d to create a world.
		if len(strings.TrimSpace(string(c.Body()))) > 0 {
			if err := httpapi.DecodeJSON(c.Body(), &body); err != nil {
				return err
			}
		}
		w, created, err := svc.Put(c.UserContext(), httpapi.Param(c, "name"), body.SandboxKey)
		if err != nil {
			return err
		}
		if created {
			c.Status(fiber.StatusCreated)
		}
		return c.JSON(view(w))
	})
	r.Get("/worlds/:name", func(c *fiber.Ctx) error {
		w, err := svc.Get(c.UserContext(), httpapi.Param(c, "name"))
		if err != nil {
			return err
		}
		return c.JSON(view(w))
	})
	r.Get("/worlds", func(c *fiber.Ctx) error {
		p, err := httpapi.Paging(c)
		if err != nil {
			return err
		}
		list, total, err := svc.List(c.UserContext(), p)
		if err != nil {
			return err
		}
		out := make([]World, len(list))
		for i, w := range list {
			out[i] = view(w)
		}
		return c.JSON(fiber.Map{"worlds": out, "paging": p.Of(total)})
	})
	r.Delete("/worlds/:name", func(c *fiber.Ctx) error {
		if err := svc.Delete(c.UserContext(), httpapi.Param(c, "name")); err != nil {
			return err
		}
		return c.SendStatus(fiber.StatusNoContent)
	})
}
