package httpapi

import (
	"reflect"
	"sync"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// RouteShape is the shape a route's errors render in: the first UseShape
// among its handlers, else (a).
func RouteShape(handlers []fiber.Handler) Shape {
	for _, h := range handlers {
		switch reflect.ValueOf(h).Pointer() {
		case shapePointers[ShapeDefault]:
			return ShapeDefault
		case shapePointers[ShapeBrands]:
			return ShapeBrands
		case shapePointers[ShapeContacts]:
			return ShapeContacts
		}
	}
	return ShapeDefault
}

// shapePointers are the code pointers of UseShape's three handlers.
var shapePointers = map[Shape]uintptr{
	ShapeDefault:  reflect.ValueOf(useShapeDefault).Pointer(),
	ShapeBrands:   reflect.ValueOf(useShapeBrands).Pointer(),
	ShapeContacts: reflect.ValueOf(useShapeContacts).Pointer(),
}

// Shapes tells, for a request that has not been routed yet, the error
// shape of the route that would serve it ((a) where no route would): what
// an answer made before routing (a sandbox fault) must use to look like
// the route's own. It routes the method and path through a copy of app's
// route table whose handlers only name their shape, so it agrees with the
// router on parameters, optional segments, case and trailing slashes.
// The table is copied on first use, once every route is mounted.
type Shapes struct {
	app  *fiber.App
	once sync.Once
	mux  fasthttp.RequestHandler
}

// NewShapes reads app's routes when first asked.
func NewShapes(app *fiber.App) *Shapes { return &Shapes{app: app} }

const shapeValue = "httpapi.route_shape"

// Of returns the shape of the route that would serve method and path.
func (s *Shapes) Of(method, path string) Shape {
	s.once.Do(s.build)
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(path)
	s.mux(&ctx)
	shape, _ := ctx.UserValue(shapeValue).(Shape)
	return shape
}

func (s *Shapes) build() {
	cfg := s.app.Config()
	shadow := fiber.New(fiber.Config{
		CaseSensitive: cfg.CaseSensitive, StrictRouting: cfg.StrictRouting, UnescapePath: cfg.UnescapePath,
		DisableStartupMessage: true,
	})
	for _, r := range s.app.GetRoutes(true) {
		shape := RouteShape(r.Handlers)
		shadow.Add(r.Method, r.Path, func(c *fiber.Ctx) error {
			c.Context().SetUserValue(shapeValue, shape)
			return nil
		})
	}
	s.mux = shadow.Handler()
}
