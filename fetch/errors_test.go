package fetch

import (
	"errors"
	"testing"
	"time"

	"github.com/casebook/casebook"
)

func TestErrorWrapping(t *testing.T) {
	perm := tooLarge("https://example.com/big", 10<<20).result()
	var fe *Error
	if !errors.As(perm, &fe) || fe.Kind != KindTooLarge || !casebook.IsPermanent(perm) {
		t.Fatalf("permanent error: %T %v", perm, perm)
	}
	if perm.Error() != "too large: body exceeds 10485760 bytes" {
		t.Errorf("message %q", perm.Error())
	}
	transient := statusError("https://example.com/", 503, 30*time.Second).result()
	if casebook.IsPermanent(transient) {
		t.Error("503 permanent")
	}
	if fe, ok := AsError(transient); !ok || fe.RetryAfter != 30*time.Second || fe.Permanent() {
		t.Errorf("503: %+v", fe)
	}
	skip := unsupported("https://example.com/x.png", "image/png")
	if s, ok := casebook.AsSkip(skip); !ok || s.Reason != "unsupported content type: image/png" {
		t.Errorf("skip: %v", skip)
	}
	if fe, ok := AsError(skip); !ok || fe.Kind != KindUnsupportedContentType {
		t.Errorf("skip is not a *fetch.Error: %v", skip)
	}
}

func TestSecs(t *testing.T) {
	for d, want := range map[time.Duration]string{
		60 * time.Second: "60s", 15 * time.Second: "15s", 500 * time.Millisecond: "500ms", 1500 * time.Millisecond: "1.5s",
	} {
		if got := secs(d); got != want {
			t.Errorf("secs(%s) = %q, want %q", d, got, want)
		}
	}
}
