// Package kerneltest holds the test doubles of the kernel every module's
// use-case tests share.
package kerneltest

import "time"

// Clock is a settable clock: Now is At until the test moves it.
type Clock struct{ At time.Time }

// Now implements kernel.Clock.
func (c *Clock) Now() time.Time { return c.At }
