package casebook

import (
	"errors"
	"fmt"
)

// Stage outcomes that callers branch on. Anything that is neither Permanent
// nor Skip is transient: the pipeline redelivers it with backoff until the
// delivery limit, then dead-letters it.

// PermanentError ends a submission as failed: retrying cannot help
// (HTTP 404, DNS name does not exist, body too large, unsupported content).
type PermanentError struct {
	Err error
}

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent marks err as not worth retrying.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// Permanentf is fmt.Errorf wrapped in Permanent.
func Permanentf(format string, args ...any) error {
	return Permanent(fmt.Errorf(format, args...))
}

// IsPermanent reports whether err (or anything it wraps) is permanent.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

// SkipError ends a submission as skipped: a recorded, expected outcome such
// as "not an incident write-up" or "unsupported language: de".
type SkipError struct {
	Reason string
	// DuplicateOf names the existing draft or case when the skip is a duplicate.
	DuplicateOf string
	// Score is the relevance gate's score when the gate skipped the post
	// (the skipped list shows it), and Scored says it did: a post the gate
	// finds far from an incident scores 0.00, which is a score all the same.
	Score  float64
	Scored bool
}

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// Skip returns a SkipError with the reason.
func Skip(format string, args ...any) error {
	return &SkipError{Reason: fmt.Sprintf(format, args...)}
}

// AsSkip returns the SkipError in err's chain, if any.
func AsSkip(err error) (*SkipError, bool) {
	var s *SkipError
	ok := errors.As(err, &s)
	return s, ok
}
