package casebook

// Submission states, in the order a submission moves through them.
const (
	StateQueued      = "queued"
	StateFetching    = "fetching"
	StateExtracting  = "extracting"
	StateClassifying = "classifying"
	StateDrafted     = "drafted"
	StateSkipped     = "skipped"
	StateFailed      = "failed"
)

// Submission is one request to turn a URL into a draft, manual or crawled.
type Submission struct {
	ID        string `json:"id"`
	URL       string `json:"url"`
	State     string `json:"state"`
	DraftID   string `json:"draft_id"`
	Reason    string `json:"reason"`
	Error     string `json:"error"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	// Origin is "manual" or "crawl:<source>"; manual submissions below the
	// relevance threshold still become drafts. Extension of the shape.
	Origin string `json:"origin,omitempty"`
	// Attempts counts the failed tries of the stage it is in while that
	// stage retries it (Error then holds the last one's error); cleared when
	// it moves on. Extension of the shape.
	Attempts int `json:"attempts,omitempty"`
}

// Terminal reports whether the submission has reached a final state.
func (s *Submission) Terminal() bool {
	switch s.State {
	case StateDrafted, StateSkipped, StateFailed:
		return true
	}
	return false
}

// Manual reports whether a person asked for this submission.
func (s *Submission) Manual() bool { return s.Origin == "" || s.Origin == "manual" }
