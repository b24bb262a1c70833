// Package pipelines wires casebook's stages to NATS JetStream.
//
// Subjects, streams and consumers (created idempotently at start):
//
//	stream CASEBOOK_WORK    subjects casebook.work.>   work-queue retention, file storage
//	  casebook.work.fetch     FetchTask  -> consumer "fetch"    (fetch workers, any process)
//	  casebook.work.extract   PageRef    -> consumer "extract"  (extract workers, any process)
//	  casebook.work.classify  DocTask    -> consumer "classify" (classify workers, any process)
//	  casebook.work.sink      SinkTask   -> consumer "sink"     (the store process only)
//	stream CASEBOOK_EVENTS  subjects casebook.event.>  limits retention (7 days)
//	  casebook.event.<submission>.<state>  Event -> consumer "recorder" (the store process)
//	    terminal outcomes only (skipped, failed): they must not be lost
//	core NATS casebook.progress.<submission>.<state>  Event (fetching, extracting,
//	  classifying): not stored; the store process coalesces and flushes them
//	stream CASEBOOK_DEAD    subjects casebook.dead.>   limits retention
//	  casebook.dead.<stage>   DeadLetter (stage, error, attempts, original payload)
//	core NATS casebook.seen.claim  request/reply: a fetch worker asks the store
//	  process whether a crawled page's content hash or rel=canonical URL was seen
//	KV casebook_hosts   per-host politeness: next-allowed time (CAS), slot leases, policy
//	KV casebook_robots  robots.txt cache, TTL 24 h
//	KV casebook_bodies: page bodies up to 900 KiB ("page.<sha256>"), 7 days
//	object store casebook_pages: larger page bodies ("page/<sha256>") and payloads
//	  too large for one message ("blob/<msg id>"); all passed by reference.
//
// Every publish carries a Nats-Msg-Id "<submission>:<stage>[:<state>]", so a
// retried publish inside the stream's duplicate window is a no-op; beyond it
// the sink is idempotent by submission, canonical URL and content hash.
// A worker acknowledges its input only after its output is acknowledged by
// JetStream (and the sink only after the bbolt commit).
package pipelines

import (
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

// Stream, consumer and subject names.
const (
	StreamWork   = "CASEBOOK_WORK"
	StreamEvents = "CASEBOOK_EVENTS"
	StreamDead   = "CASEBOOK_DEAD"
	PagesBucket  = "casebook_pages"
	BodiesBucket = "casebook_bodies"
	// DeferralsBucket counts, per work-stream message, the deliveries a
	// fetch spent waiting for its host, so they are not counted as attempts.
	DeferralsBucket = "casebook_deferrals"

	SubjectFetch    = "casebook.work.fetch"
	SubjectExtract  = "casebook.work.extract"
	SubjectClassify = "casebook.work.classify"
	SubjectSink     = "casebook.work.sink"
	SubjectEvents   = "casebook.event.>"
	SubjectDead     = "casebook.dead."
	// SubjectProgress prefixes core-NATS (not stored) progress events.
	SubjectProgress = "casebook.progress."

	StageFetch    = "fetch"
	StageExtract  = "extract"
	StageClassify = "classify"
	StageSink     = "sink"
	ConsumerEvent = "recorder"

	// HeaderSubmission carries the submission id on every message.
	HeaderSubmission = "Casebook-Submission"
	// HeaderBlob names an object holding the payload when it was too large to inline.
	HeaderBlob = "Casebook-Blob"
)

// Stages lists the stage names in pipeline order.
var Stages = []string{StageFetch, StageExtract, StageClassify, StageSink}

// StageSubject maps a stage to the subject it consumes.
var StageSubject = map[string]string{
	StageFetch: SubjectFetch, StageExtract: SubjectExtract,
	StageClassify: SubjectClassify, StageSink: SubjectSink,
}

// FetchTask asks for one URL to be fetched.
type FetchTask struct {
	SubmissionID string `json:"submission_id"`
	URL          string `json:"url"`
	Origin       string `json:"origin"` // "manual" or "crawl:<source>"
}

// PageRef is a fetched page; its body lives in the object store under Key.
type PageRef struct {
	SubmissionID string    `json:"submission_id"`
	Origin       string    `json:"origin"`
	RequestURL   string    `json:"request_url"`
	URL          string    `json:"url"` // final URL after redirects
	ContentType  string    `json:"content_type"`
	Charset      string    `json:"charset"`
	SHA256       string    `json:"sha256"`
	Key          string    `json:"key"`
	Size         int       `json:"size"`
	FetchedAt    time.Time `json:"fetched_at"`
}

// DocTask is an extracted document on its way to the classifier.
type DocTask struct {
	Page PageRef           `json:"page"`
	Doc  *extract.Document `json:"doc"`
}

// SinkTask is a drafted case on its way to the store.
type SinkTask struct {
	SubmissionID string         `json:"submission_id"`
	CanonicalURL string         `json:"canonical_url"`
	ContentHash  string         `json:"content_hash"`
	Case         *casebook.Case `json:"case"`
	// Text is the extracted main text the evidence spans point into, kept
	// with the draft so a reviewer sees each field's source highlighted.
	Text string `json:"text"`
}

// Event reports a submission's progress; the store process records it.
type Event struct {
	SubmissionID string `json:"submission_id"`
	Stage        string `json:"stage"`
	State        string `json:"state"`
	Reason       string `json:"reason,omitempty"`
	Error        string `json:"error,omitempty"`
	// Score is the relevance gate's score on a skip by the gate (Scored);
	// an event from before Scored existed has a non-zero Score alone.
	Score  float64 `json:"score,omitempty"`
	Scored bool    `json:"scored,omitempty"`
	// Attempt is set on a progress event about a failed try that will be
	// retried: the tries so far.
	Attempt int       `json:"attempt,omitempty"`
	At      time.Time `json:"at"`
}

// DeadLetter is a message a stage gave up on.
type DeadLetter struct {
	Stage        string    `json:"stage"`
	Subject      string    `json:"subject"`
	SubmissionID string    `json:"submission_id"`
	Error        string    `json:"error"`
	Attempts     int       `json:"attempts"`
	Payload      []byte    `json:"payload"`
	Blob         string    `json:"blob,omitempty"`
	At           time.Time `json:"at"`
}
