package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/feria/feria/core/kernel"
)

// ErrBadText is the error of a text field that is not valid UTF-8 or holds
// a NUL character: neither can be stored (PostgreSQL refuses both in text
// columns), so they are refused before anything is written.
var ErrBadText = kernel.E(kernel.Invalid, "bad_request", "text must be valid UTF-8 without NUL characters")

// CheckText refuses a JSON body any of whose strings (keys or values) holds
// a NUL character, naming the field (`items[0].title`), or whose bytes are
// not valid UTF-8. A body that is not JSON passes: decoding reports it.
func CheckText(body []byte) error {
	if !utf8.Valid(body) {
		return ErrBadText.With("request body is not valid UTF-8").WithCause("body", "the body must be UTF-8 text")
	}
	// A NUL reaches a decoded JSON string only as the escape \u0000 (a raw
	// NUL byte is not JSON): most bodies are done here.
	if !bytes.Contains(body, []byte(`\u0000`)) {
		return nil
	}
	field, err := findNUL(json.NewDecoder(bytes.NewReader(body)), "")
	if err != nil || field == "" {
		return nil
	}
	return ErrBadText.Withf("field %s must not contain NUL characters", field).
		WithCause(field, field+" must be valid UTF-8 without NUL characters")
}

// Text refuses a text value of a query, form or multipart part the same way.
func Text(field, v string) error {
	if utf8.ValidString(v) && !strings.ContainsRune(v, 0) {
		return nil
	}
	return ErrBadText.Withf("field %s must be valid UTF-8 without NUL characters", field).
		WithCause(field, field+" must be valid UTF-8 without NUL characters")
}

// findNUL walks the next JSON value and returns the path of the first
// string holding a NUL.
func findNUL(dec *json.Decoder, path string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch t := tok.(type) {
	case string:
		if strings.ContainsRune(t, 0) {
			return orBody(path), nil
		}
	case json.Delim:
		switch t {
		case '{':
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return "", err
				}
				key, _ := kt.(string)
				p := key
				if path != "" {
					p = path + "." + key
				}
				if strings.ContainsRune(key, 0) {
					return p, nil
				}
				if f, err := findNUL(dec, p); f != "" || err != nil {
					return f, err
				}
			}
			_, err = dec.Token()
			return "", err
		case '[':
			for i := 0; dec.More(); i++ {
				if f, err := findNUL(dec, fmt.Sprintf("%s[%d]", path, i)); f != "" || err != nil {
					return f, err
				}
			}
			_, err = dec.Token()
			return "", err
		}
	}
	return "", nil
}

func orBody(path string) string {
	if path == "" {
		return "body"
	}
	return path
}
