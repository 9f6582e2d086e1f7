package cli

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Healthcheck implements "site healthcheck": it asks the server listening on addr under basePath
// (the site's -addr and -base-path) for /healthz; the container image has no shell or curl, so the
// binary checks itself. An address on every interface is asked on the loopback.
func Healthcheck(ctx context.Context, addr, basePath string) error {
	if strings.HasPrefix(addr, "0.0.0.0:") || strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1:" + addr[strings.LastIndex(addr, ":")+1:]
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+basePath+"/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthz answered %s", resp.Status)
	}
	return nil
}
