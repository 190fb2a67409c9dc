package apptest

import "net/url"

// With is a copy of form with key set to value, or without key when value
// is empty: the one-field variations of a valid form that error tests send.
func With(form url.Values, key, value string) url.Values {
	c := url.Values{}
	for k, v := range form {
		c[k] = v
	}
	if value == "" {
		c.Del(key)
	} else {
		c.Set(key, value)
	}
	return c
}
