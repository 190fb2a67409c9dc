package kernel

import "context"

// Caller is who a request acts for: the owner of the access token it carried.
type Caller struct {
	UserID int64
	SiteID string
	// AppID is the application the token belongs to; 0: none.
	AppID int64
}

type callerKey struct{}

// WithCaller returns a context that carries the caller.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller of ctx, if the request was authenticated.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
