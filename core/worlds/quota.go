package worlds

import "github.com/feria/feria/core/kernel"

// Quota bounds what one world may hold and ask (WORLD_MAX_ROWS,
// WORLD_MAX_BYTES, WORLD_MAX_JOURNAL, WORLD_MAX_REQUESTS_PER_MINUTE). The
// default world has none: it is the instance's own, bounded by its
// deployment. A zero Rows, Bytes or PerMinute is no bound.
type Quota struct {
	// Rows bounds the rows of the world's database; Bytes the bytes of
	// its rows and its stored files together. Both are measured before a
	// write that may grow the world, which is refused once the world holds
	// its Rows, or when its body does not fit in the Bytes left.
	Rows, Bytes int64
	// Journal is how many public requests the world's journal keeps (at
	// most control.JournalSize): older ones are trimmed, never refused.
	Journal int
	// PerMinute bounds the world's public requests in each minute.
	PerMinute int
}

var (
	// ErrOverRows refuses a write of a world that holds its quota of rows.
	ErrOverRows = kernel.E(kernel.Exhausted, "too_many_requests", "this world holds its maximum of rows")
	// ErrOverBytes refuses a write of a world without room for its body.
	ErrOverBytes = kernel.E(kernel.TooLarge, "payload_too_large", "this world has no room for the request")
	// ErrOverRequests refuses a request beyond the world's requests a minute.
	ErrOverRequests = kernel.E(kernel.Exhausted, "too_many_requests", "this world is over its requests a minute")
)

// freeRoom is what every storage refusal says frees room.
const freeRoom = "delete resources or reset the world (its DELETE /sandbox) before storing more"

// OverRows is ErrOverRows naming the world and its quota.
func OverRows(name string, max int64) error {
	return ErrOverRows.Withf("world %s holds its maximum of %d rows (WORLD_MAX_ROWS): %s", name, max, freeRoom)
}

// OverBytes is ErrOverBytes naming the world, its quota and the length of
// the request's body, which does not fit.
func OverBytes(name string, max, body int64) error {
	return ErrOverBytes.Withf("a body of %d bytes does not fit in the %d bytes world %s may hold (WORLD_MAX_BYTES): %s", body, max, name, freeRoom)
}

// OverRequests is ErrOverRequests naming the world and its quota.
func OverRequests(name string, perMinute int) error {
	return ErrOverRequests.Withf("world %s is over its maximum of %d requests a minute (WORLD_MAX_REQUESTS_PER_MINUTE): retry after the seconds of Retry-After", name, perMinute)
}
