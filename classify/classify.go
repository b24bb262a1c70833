// Package classify reads an extracted Document and drafts the case fields:
// language, relevance, symptoms, root cause, trigger, detection, remediation,
// action items, lessons, impact, labels and tags, each with evidence spans.
package classify

import (
	"strings"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

// Version is recorded in every draft's extraction.version.
const Version = "1"

// Config tunes the classifier.
type Config struct {
	// RelevanceThreshold is the score under which a document is not an incident write-up.
	RelevanceThreshold float64
}

// Classifier drafts cases. It is safe for concurrent use; build one per worker
// since the language models are loaded once.
type Classifier struct {
	cfg  Config
	lang *LanguageDetector
}

// New builds a classifier and loads its language models.
func New(cfg Config) *Classifier {
	if cfg.RelevanceThreshold == 0 {
		cfg.RelevanceThreshold = 0.5
	}
	return &Classifier{cfg: cfg, lang: NewLanguageDetector()}
}

// Threshold returns the relevance threshold in use.
func (c *Classifier) Threshold() float64 { return c.cfg.RelevanceThreshold }

// Classify drafts a case from doc. It fills the content fields only; the
// pipeline sets id, status, sources and timestamps.
func (c *Classifier) Classify(doc *extract.Document) *casebook.Case {
	cs := &casebook.Case{
		Status:       casebook.StatusDraft,
		Title:        doc.Title,
		Organization: doc.Organization,
		Published:    doc.Published,
		Extraction: casebook.Extraction{
			Method: "heuristic", Version: Version,
			Confidence: map[string]float64{}, Evidence: map[string][]casebook.Span{},
		},
	}
	cs.Language = c.lang.Detect(doc)
	if cs.Language == "und" {
		cs.Normalize()
		return cs
	}
	fillFields(cs, doc)
	cs.Relevance = relevance(cs, doc, c.cfg.RelevanceThreshold)
	cs.Normalize()
	return cs
}

// fieldOf maps a section heading to a case field ("" when it names none).
func fieldOf(heading string) string {
	h := strings.ToLower(strings.TrimSpace(heading))
	for _, fh := range headingTable {
		for _, cue := range fh.cues {
			if strings.Contains(h, cue) {
				return fh.field
			}
		}
	}
	return ""
}

var headingTable = []struct {
	field string
	cues  []string
}{
	{"root_cause", []string{"root cause", "cause", "корневая причина", "причина", "根本原因", "根因", "原因"}},
	{"trigger", []string{"trigger", "триггер", "触发"}},
	{"detection", []string{"detection", "обнаружение", "发现"}},
	{"action_items", []string{"action item", "follow-up", "next steps", "что дальше", "改进措施", "后续"}},
	{"lessons", []string{"lesson", "learned", "выводы", "уроки", "经验教训", "总结"}},
	{"remediation", []string{"resolution", "remediation", "mitigation", "fix", "решение", "исправление", "что сделали", "解决", "修复", "处理"}},
	{"symptoms", []string{"symptom", "summary", "what happened", "симптомы", "что случилось", "现象", "问题描述"}},
	{"impact", []string{"impact", "влияние", "影响"}},
}

func fillFields(cs *casebook.Case, doc *extract.Document) {
	for _, sec := range doc.Sections {
		field := fieldOf(sec.Heading)
		if field == "" {
			continue
		}
		var texts []string
		var spans []casebook.Span
		for _, b := range sec.Blocks {
			if b.Kind == extract.Code || b.Kind == extract.Table {
				continue
			}
			texts = append(texts, b.Text)
			spans = append(spans, casebook.Span{Start: b.Start, End: b.End})
		}
		if len(texts) == 0 {
			continue
		}
		joined := strings.Join(texts, " ")
		switch field {
		case "root_cause":
			cs.RootCause.Description = joined
		case "trigger":
			cs.Trigger.Description = joined
		case "detection":
			cs.Detection.Description = joined
		case "symptoms":
			if cs.Symptoms == "" {
				cs.Symptoms = joined
			}
		case "impact":
			cs.Impact.Scope = texts[0]
		case "remediation":
			cs.Remediation = append(cs.Remediation, texts...)
		case "action_items":
			cs.ActionItems = append(cs.ActionItems, texts...)
		case "lessons":
			cs.Lessons = append(cs.Lessons, texts...)
		}
		cs.Extraction.Evidence[field] = append(cs.Extraction.Evidence[field], spans...)
		cs.Extraction.Confidence[field] = 0.6
	}
}

func relevance(cs *casebook.Case, doc *extract.Document, threshold float64) casebook.Relevance {
	score := 0.0
	if cs.RootCause.Description != "" {
		score += 0.4
	}
	if len(cs.Remediation) > 0 {
		score += 0.3
	}
	if cs.Symptoms != "" {
		score += 0.2
	}
	low := strings.ToLower(doc.Title + " " + doc.Text)
	for _, w := range []string{"incident", "outage", "postmortem", "post-mortem", "инцидент", "сбой", "故障", "事故"} {
		if strings.Contains(low, w) {
			score += 0.1
			break
		}
	}
	if score > 1 {
		score = 1
	}
	return casebook.Relevance{IsPostmortem: score >= threshold, Score: score}
}
