package kernel

import "time"

// Clock is the only source of "now" in core, so that the sandbox can freeze
// time for every use case at once.
type Clock interface {
	Now() time.Time
}

// ClockFunc adapts a function to Clock.
type ClockFunc func() time.Time

func (f ClockFunc) Now() time.Time { return f() }

// SystemClock reads the machine's clock, in UTC, cut to microseconds (the
// precision the databases keep).
var SystemClock Clock = ClockFunc(func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) })
