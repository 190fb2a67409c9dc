package controlapi

import "testing"

func TestStatusCode(t *testing.T) {
	for status, want := range map[int]string{400: "bad_request", 401: "unauthorized", 404: "not_found", 418: "im_a_teapot",
		429: "too_many_requests", 500: "internal_server_error", 502: "bad_gateway", 503: "service_unavailable", 504: "gateway_timeout", 599: "error_599"} {
		if got := StatusCode(status); got != want {
			t.Errorf("StatusCode(%d) = %q, want %q", status, got, want)
		}
	}
}
