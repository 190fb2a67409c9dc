package httpapi

import (
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/core/kernel"
)

// maxSuggestCost is how far a path may be from a route for the 404 to name
// that route: less than half a segment spelled differently. Farther, a
// guess would mislead more than it helps.
const maxSuggestCost = 0.5

// maxSuggestPath bounds the work of a guess: no route is that long.
const maxSuggestPath = 256

// NotFound answers routes that match nothing. Where a route of the same
// method is close to the path (a letter or two off in a segment, a segment
// missing or extra), the message names it in the contract's spelling, so
// that a client's typo reads as one.
func NotFound(c *fiber.Ctx) error {
	method, path := c.Method(), c.Path()
	if near := nearestRoute(c.App(), method, path); near != "" {
		return kernel.E(kernel.NotExist, "not_found", "no route "+method+" "+path+"; did you mean "+method+" "+near+"?")
	}
	return kernel.E(kernel.NotExist, "not_found", "resource "+method+" "+path+" not found")
}

// routeIndex is an app's routes by method, split in segments; an app's
// routes are all mounted before its first request, so it is built once.
type routeIndex struct {
	once     sync.Once
	byMethod map[string][][]string
}

var indexes sync.Map // *fiber.App → *routeIndex

func nearestRoute(app *fiber.App, method, path string) string {
	if len(path) > maxSuggestPath {
		return ""
	}
	v, _ := indexes.LoadOrStore(app, &routeIndex{})
	idx := v.(*routeIndex)
	idx.once.Do(func() {
		idx.byMethod = map[string][][]string{}
		seen := map[string]bool{}
		for _, r := range app.GetRoutes(true) {
			if r.Path == "/" || strings.Contains(r.Path, "*") || seen[r.Method+" "+r.Path] {
				continue
			}
			seen[r.Method+" "+r.Path] = true
			idx.byMethod[r.Method] = append(idx.byMethod[r.Method], segments(r.Path))
		}
	})
	want := segments(path)
	best, bestCost := []string(nil), maxSuggestCost
	for _, route := range idx.byMethod[method] {
		if cost := pathCost(want, route); cost < bestCost {
			best, bestCost = route, cost
		}
	}
	if best == nil {
		return ""
	}
	out := make([]string, len(best))
	for i, s := range best {
		if strings.HasPrefix(s, ":") {
			s = "{" + strings.TrimSuffix(s[1:], "?") + "}"
		}
		out[i] = s
	}
	return "/" + strings.Join(out, "/")
}

func segments(path string) []string {
	return strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
}

// pathCost is the edit distance of two paths counted in segments: a
// parameter matches any segment, a segment spelled differently costs the
// share of its letters that differ, one missing or extra costs 1.
func pathCost(path, route []string) float64 {
	prev := make([]float64, len(route)+1)
	cur := make([]float64, len(route)+1)
	for j := range prev {
		prev[j] = float64(j)
	}
	for i := 1; i <= len(path); i++ {
		cur[0] = float64(i)
		for j := 1; j <= len(route); j++ {
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+segmentCost(path[i-1], route[j-1]))
		}
		prev, cur = cur, prev
	}
	return prev[len(route)]
}

func segmentCost(seg, route string) float64 {
	if strings.HasPrefix(route, ":") || seg == route {
		return 0
	}
	return float64(levenshtein(seg, route)) / float64(max(len(seg), len(route)))
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
