package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// health is `feria health`: the health check of a container built on an
// image without a shell or curl (deploy/Dockerfile). It asks the API
// listening on addr (HTTP_ADDR) for /health/live, on loopback when addr
// names no host or every interface. Liveness, not readiness: a backend
// that is down makes the API answer 503 on /health/ready, and restarting
// the API would not bring the backend back.
func health(ctx context.Context, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("HTTP_ADDR: want host:port or :port, got %q", addr)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/health/live"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("health: %s: %w", url, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s answered %d", url, res.StatusCode)
	}
	return nil
}
