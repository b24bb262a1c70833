package pipelines

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
)

// TestPullErrorBoxedStores: the runner keeps pull errors of different
// concrete types in one atomic.Value (a server shutdown, then a canceled
// context); unboxed, the second Store panics and kills the worker.
func TestPullErrorBoxedStores(t *testing.T) {
	var v atomic.Value
	// *errors.errorString, *fmt.wrapError, *nats.APIError: three types
	v.Store(pullError{nats.ErrConnectionClosed})
	v.Store(pullError{fmt.Errorf("fetch: %w", context.Canceled)})
	v.Store(pullError{&nats.APIError{Code: 503, Description: "other"}})
	if box, _ := v.Load().(pullError); box.err == nil || !errors.As(box.err, new(*nats.APIError)) {
		t.Fatalf("Load = %v, want the latest error", box.err)
	}
}
