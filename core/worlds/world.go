// Package worlds is the service's many sandboxes: a world is a named,
// isolated copy of the whole API under /worlds/{name}, created and removed
// with the instance's own sandbox key. The root paths are the default world,
// which is not one of these.
package worlds

import (
	"fmt"
	"time"

	"github.com/feria/feria/core/kernel"
)

const (
	// MaxNameLen is the longest name: a DNS label's, so that a name can be
	// a host name's first label too.
	MaxNameLen = 63
	// MinKeyLen is the shortest sandbox key a caller may choose.
	MinKeyLen = 16
	// Prefix leads every path of a world.
	Prefix = "/worlds/"
)

// World is one world as the registry keeps it. Its times are the
// machine's, not any world's sandbox clock.
type World struct {
	Name       string
	SandboxKey string
	CreatedAt  time.Time
	LastUsedAt time.Time
}

// BasePath is where the world is served.
func BasePath(name string) string { return Prefix + name }

var (
	// ErrName is a name outside the allowed form.
	ErrName = kernel.E(kernel.Invalid, "bad_request",
		fmt.Sprintf("name must be 1 to %d characters of a-z, 0-9 and -, not starting or ending with -", MaxNameLen))
	// ErrKey is a chosen sandbox key too short to be one.
	ErrKey = kernel.E(kernel.Invalid, "bad_request", fmt.Sprintf("sandbox_key must be a string of at least %d characters", MinKeyLen))
	// ErrNotFound is a world that does not exist.
	ErrNotFound = kernel.E(kernel.NotExist, "not_found", "world not found")
	// ErrTooMany is a creation past MAX_WORLDS.
	ErrTooMany = kernel.E(kernel.Exhausted, "too_many_requests", "this instance holds its maximum of worlds")
)

// CheckName accepts 1 to MaxNameLen characters of a-z, 0-9 and '-', not
// starting or ending with '-'.
func CheckName(name string) error {
	if name == "" || len(name) > MaxNameLen || name[0] == '-' || name[len(name)-1] == '-' {
		return ErrName.WithCause("name", ErrName.Message)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return ErrName.WithCause("name", ErrName.Message)
		}
	}
	return nil
}

// CheckKey accepts a chosen sandbox key of at least MinKeyLen characters.
func CheckKey(key string) error {
	if len([]rune(key)) < MinKeyLen {
		return ErrKey.WithCause("sandbox_key", ErrKey.Message)
	}
	return nil
}

// NotFound is ErrNotFound naming the world.
func NotFound(name string) error {
	return ErrNotFound.Withf("world %s not found", name)
}

// TooMany is ErrTooMany stating the limit.
func TooMany(max int) error {
	return ErrTooMany.Withf("this instance holds its maximum of %d worlds (MAX_WORLDS): delete one before creating another", max)
}
