package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/casebook/casebook/sinks"
	"github.com/nats-io/nats.go"
)

// SubjectSeenClaim is core NATS request/reply: fetch workers ask the store
// process whether a crawled page's content or rel=canonical URL was already
// seen (the seen-set is in bbolt).
const SubjectSeenClaim = "casebook.seen.claim"

// SeenClaimer asks whether a crawled page was already seen (same content,
// or a rel=canonical URL another submission crawled) and records it if not.
type SeenClaimer interface {
	Claim(ctx context.Context, c SeenClaim) (dupURL string, err error)
}

// SeenClaim is the casebook.seen.claim request.
type SeenClaim struct {
	SubmissionID string `json:"submission_id"`
	Source       string `json:"source"`
	URL          string `json:"url"`       // canonical, rel=canonical honoured
	SHA256       string `json:"sha256"`    // of the decoded body
	Duplicate    string `json:"duplicate"` // reply: the URL already seen, "" if new
	Error        string `json:"error,omitempty"`
}

// NewSeenClient asks the store process's seen-set over core NATS.
func NewSeenClient(nc *nats.Conn) SeenClaimer { return natsSeen{nc: nc} }

type natsSeen struct{ nc *nats.Conn }

func (n natsSeen) Claim(ctx context.Context, c SeenClaim) (string, error) {
	raw, _ := json.Marshal(c)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	msg, err := n.nc.RequestWithContext(ctx, SubjectSeenClaim, raw)
	if err != nil {
		return "", fmt.Errorf("seen-set claim: %w", err)
	}
	var reply SeenClaim
	if err := json.Unmarshal(msg.Data, &reply); err != nil {
		return "", fmt.Errorf("seen-set reply: %w", err)
	}
	if reply.Error != "" {
		return "", fmt.Errorf("seen-set: %s", reply.Error)
	}
	return reply.Duplicate, nil
}

// ServeSeen answers casebook.seen.claim requests from fetch workers with the
// bbolt seen-set. Only the store process runs it.
// Claims are answered concurrently (up to 64 at once) so bbolt's Batch
// coalesces them into few transactions; one at a time, each would wait
// out the batch delay alone.
func ServeSeen(nc *nats.Conn, store *sinks.Store) (*nats.Subscription, error) {
	sem := make(chan struct{}, 64)
	sub, err := nc.QueueSubscribe(SubjectSeenClaim, "seen", func(m *nats.Msg) {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			var c SeenClaim
			if err := json.Unmarshal(m.Data, &c); err != nil {
				c.Error = "bad claim: " + err.Error()
			} else if dup, err := store.ClaimContent(c.SHA256, c.URL, c.Source, c.SubmissionID); err != nil {
				c.Error = err.Error()
			} else if dup != nil {
				c.Duplicate = dup.URL
			}
			raw, _ := json.Marshal(c)
			_ = m.Respond(raw)
		}()
	})
	if err != nil {
		return nil, fmt.Errorf("subscribe %s: %w", SubjectSeenClaim, err)
	}
	return sub, nil
}
