package kerneltest

// Ptr returns a pointer to a copy of v: the optional fields of requests
// and rows in a table of cases.
func Ptr[T any](v T) *T { return &v }
