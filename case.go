// Package casebook holds the case record, the submission record and the
// controlled vocabulary shared by every stage, store and API of casebook.
//
// The JSON shape follows shared/design/case-schema.md exactly: every field is
// always present, empty text is "" and empty lists are [] (never null).
package casebook

import (
	"encoding/json"
	"time"
)

// Case statuses.
const (
	StatusDraft     = "draft"
	StatusPublished = "published"
	StatusRejected  = "rejected"
	StatusMerged    = "merged"
)

// Case is one incident as the pipeline drafts it and the API serves it.
type Case struct {
	ID           string     `json:"id"`
	Status       string     `json:"status"`
	Title        string     `json:"title"`
	Organization string     `json:"organization"`
	Published    string     `json:"published"`
	IncidentDate string     `json:"incident_date"`
	Language     string     `json:"language"`
	Summary      string     `json:"summary"`
	Tags         []string   `json:"tags"`
	Components   []string   `json:"components"`
	Impact       Impact     `json:"impact"`
	Symptoms     string     `json:"symptoms"`
	RootCause    RootCause  `json:"root_cause"`
	Trigger      Trigger    `json:"trigger"`
	Detection    Detection  `json:"detection"`
	Remediation  []string   `json:"remediation"`
	ActionItems  []string   `json:"action_items"`
	Lessons      []string   `json:"lessons"`
	Sources      []Source   `json:"sources"`
	Related      []Related  `json:"related"`
	Relevance    Relevance  `json:"relevance"`
	Extraction   Extraction `json:"extraction"`
	Review       Review     `json:"review"`
	CreatedAt    string     `json:"created_at"`
	UpdatedAt    string     `json:"updated_at"`
}

// Impact is stated impact; durations are ISO 8601 ("PT8M").
type Impact struct {
	Severity      string `json:"severity"`
	Scope         string `json:"scope"`
	UsersAffected string `json:"users_affected"`
	Region        string `json:"region"`
	Duration      string `json:"duration"`
	TimeToDetect  string `json:"time_to_detect"`
	TimeToResolve string `json:"time_to_resolve"`
}

// RootCause is the deepest cause the text names.
type RootCause struct {
	Category    string `json:"category"`
	Description string `json:"description"`
}

// Trigger is what set the cause off.
type Trigger struct {
	Kind        string `json:"kind"`
	Description string `json:"description"`
}

// Detection is how the incident was noticed.
type Detection struct {
	Method      string `json:"method"`
	Description string `json:"description"`
}

// Source is one page a case was built from.
type Source struct {
	URL       string `json:"url"`
	Title     string `json:"title"`
	Site      string `json:"site"`
	Language  string `json:"language"`
	Published string `json:"published"`
	FetchedAt string `json:"fetched_at"`
	SHA256    string `json:"sha256"`
	// ClaimedURL is a canonical URL the page claimed for itself on another
	// site: not trusted as the source, shown to the reviewer. casebook's
	// extension of the schema.
	ClaimedURL string `json:"claimed_url,omitempty"`
}

// Related is computed when served: another published case sharing labels.
type Related struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Organization string   `json:"organization"`
	Year         int      `json:"year"`
	Relation     string   `json:"relation"`
	Shared       []string `json:"shared"`
}

// Relevance says whether the source reads as an incident write-up.
type Relevance struct {
	IsPostmortem bool    `json:"is_postmortem"`
	Score        float64 `json:"score"`
	// Flagged marks a draft the gate was not confident about: a crawled post
	// in the uncertain band, or a manual submission below the confident band
	// (it became a draft because a person asked for it). Extension of the schema.
	Flagged bool `json:"flagged,omitempty"`
	// Band is the gate's band: incident, uncertain or not-incident.
	// Extension of the schema.
	Band string `json:"band,omitempty"`
	// Signals are the deciding signals, "+" for and "-" against ("-second
	// person"). Extension of the schema.
	Signals []string `json:"signals,omitempty"`
	// Reason says in words why, e.g. "guide: second person, no dated event".
	// Extension of the schema.
	Reason string `json:"reason,omitempty"`
}

// Span is a byte range [Start, End) in the extracted main text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Extraction records how the draft was made.
type Extraction struct {
	Method     string             `json:"method"`
	Version    string             `json:"version"`
	Confidence map[string]float64 `json:"confidence"`
	Evidence   map[string][]Span  `json:"evidence"`
	// Suggestions holds, per text field left empty for lack of confidence,
	// the sentences the classifier would have put there, for the reviewer
	// to take or leave (an empty field beats an invented one).
	Suggestions map[string][]string `json:"suggestions,omitempty"`
}

// Review records who decided, when and why.
type Review struct {
	DecidedBy string `json:"decided_by"`
	DecidedAt string `json:"decided_at"`
	Note      string `json:"note"`
}

// Normalize replaces nil slices and maps with empty ones so the JSON
// encoding never carries null, as the schema demands.
func (c *Case) Normalize() {
	c.Tags = nonNil(c.Tags)
	c.Components = nonNil(c.Components)
	c.Remediation = nonNil(c.Remediation)
	c.ActionItems = nonNil(c.ActionItems)
	c.Lessons = nonNil(c.Lessons)
	if c.Sources == nil {
		c.Sources = []Source{}
	}
	if c.Related == nil {
		c.Related = []Related{}
	}
	for i := range c.Related {
		c.Related[i].Shared = nonNil(c.Related[i].Shared)
	}
	if c.Extraction.Confidence == nil {
		c.Extraction.Confidence = map[string]float64{}
	}
	if c.Extraction.Evidence == nil {
		c.Extraction.Evidence = map[string][]Span{}
	}
	c.Extraction.Evidence = nonNilSpans(c.Extraction.Evidence)
	if c.RootCause.Category == "" {
		c.RootCause.Category = "unknown"
	}
	if c.Trigger.Kind == "" {
		c.Trigger.Kind = "unknown"
	}
	if c.Detection.Method == "" {
		c.Detection.Method = "unknown"
	}
	if c.Language == "" {
		c.Language = "und"
	}
	if c.Status == "" {
		c.Status = StatusDraft
	}
}

// nonNilSpans gives a field whose labels no sentence names [] instead of
// null. It copies rather than writes in place: MarshalJSON normalises a copy
// of the case, whose map may be read by other goroutines.
func nonNilSpans(ev map[string][]Span) map[string][]Span {
	for _, spans := range ev {
		if spans != nil {
			continue
		}
		out := make(map[string][]Span, len(ev))
		for f, sp := range ev {
			if sp == nil {
				sp = []Span{}
			}
			out[f] = sp
		}
		return out
	}
	return ev
}

// MarshalJSON normalises a copy first so no path can emit null lists.
func (c Case) MarshalJSON() ([]byte, error) {
	c.Normalize()
	type plain Case
	return json.Marshal(plain(c))
}

// Year returns the year of the incident or, failing that, of the post; 0 if neither.
func (c *Case) Year() int {
	for _, d := range []string{c.IncidentDate, c.Published} {
		if len(d) >= 4 {
			y := 0
			for _, r := range d[:4] {
				if r < '0' || r > '9' {
					y = -1
					break
				}
				y = y*10 + int(r-'0')
			}
			if y > 0 {
				return y
			}
		}
	}
	return 0
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Now is the RFC 3339 UTC timestamp used for created_at and friends.
func Now() string { return time.Now().UTC().Format(time.RFC3339) }
