package kernel

import "fmt"

// Problems collects the broken rules of one resource being validated, so that
// a client learns every bad field at once: each rule adds a cause naming its
// field, and the first one also becomes the error's message.
type Problems struct{ causes []Cause }

// Add records that field breaks a rule; the message is format with args.
func (p *Problems) Add(field, format string, args ...any) {
	p.causes = append(p.causes, Cause{Code: field, Message: fmt.Sprintf(format, args...)})
}

// Empty reports whether no rule was broken so far.
func (p *Problems) Empty() bool { return len(p.causes) == 0 }

// Err returns nil when no rule broke, else a copy of base whose message is the
// first cause's and whose causes are all the recorded ones, in order.
func (p *Problems) Err(base *Error) error {
	if len(p.causes) == 0 {
		return nil
	}
	e := base.With(p.causes[0].Message)
	e.Causes = append(append([]Cause(nil), base.Causes...), p.causes...)
	return e
}
