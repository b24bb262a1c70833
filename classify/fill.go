package classify

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/casebook/casebook"
)

// Caps on how many sentences a text field takes: past them a field is more
// likely padded than right.
var fieldCap = map[field]int{
	fSymptoms: 12, fRootCause: 12, fTrigger: 3, fDetection: 3,
	fRemediation: 12, fActionItems: 12, fLessons: 12,
}

// fill writes the routed sentences and the labels into cs. Labels, tags,
// impact and the incident date read the hand routes (their tables were
// written on them); then the field model, when there is one, re-routes the
// sentences for the text fields and the summary.
func (a *analysis) fill(cs *casebook.Case, m *FieldModel, lang string) {
	route := func(u *unit) field { return u.assigned }
	byField := a.byField(route, nil, nil)
	a.putText(cs, byField, false)
	a.fillImpact(cs)
	a.fillLabels(cs, byField)
	a.fillTags(cs)
	if cs.IncidentDate == "" {
		if d, sp, ok := a.incidentDate(); ok {
			cs.IncidentDate = d
			cs.Extraction.Evidence["incident_date"] = []casebook.Span{sp}
			cs.Extraction.Confidence["incident_date"] = 0.6
		}
	}
	if cs.Organization == "" {
		cs.Organization = textOrganization(a.doc.Title, a.doc.Text)
	}
	if m != nil {
		a.applyModel(m, lang)
		byField = a.byField(route, cs, m)
		a.putText(cs, byField, true)
	}
	a.fillTriggerDescription(cs)
	a.fillSummary(cs, byField)
}

// byField groups the units by the field route gives them, capped. With cs
// and m, a model field whose best sentence is under m's keep threshold is left out and its
// sentences offered to the reviewer in cs's suggestions.
func (a *analysis) byField(route func(*unit) field, cs *casebook.Case, m *FieldModel) map[field][]*unit {
	out := map[field][]*unit{}
	for i := range a.units {
		u := &a.units[i]
		if f := route(u); f != fNone {
			out[f] = append(out[f], u)
		}
	}
	for fl, us := range out {
		out[fl] = keepBest(us, fieldCap[fl])
		if cs != nil && m != nil && slices.Contains(modelFields, fl) && !confident(out[fl], m.keepFor(fl)) {
			if cs.Extraction.Suggestions == nil {
				cs.Extraction.Suggestions = map[string][]string{}
			}
			cs.Extraction.Suggestions[fieldNames[fl]] = items(out[fl])
			delete(out, fl)
		}
	}
	return out
}

// putText writes every text field from byField, with its evidence and
// confidence (the model's probabilities when byModel).
func (a *analysis) putText(cs *casebook.Case, byField map[field][]*unit, byModel bool) {
	ev := cs.Extraction.Evidence
	conf := cs.Extraction.Confidence
	for _, f := range contentFields {
		us := byField[f]
		name := fieldNames[f]
		delete(ev, name)
		delete(conf, name)
		if len(us) > 0 {
			sum := 0.0
			for _, u := range us {
				ev[name] = append(ev[name], casebook.Span{Start: u.start, End: u.end})
				if byModel && u.prob > 0 {
					sum += u.prob
				} else {
					sum += u.confidence()
				}
			}
			conf[name] = round2(sum / float64(len(us)))
		}
		switch f {
		case fSymptoms:
			cs.Symptoms = joinText(us)
		case fRootCause:
			cs.RootCause.Description = joinText(us)
		case fTrigger:
			cs.Trigger.Description = joinText(us)
		case fDetection:
			cs.Detection.Description = joinText(us)
		case fRemediation:
			cs.Remediation = items(us)
		case fActionItems:
			cs.ActionItems = items(us)
		case fLessons:
			cs.Lessons = items(us)
		}
	}
}

// confident reports a field the model drafts: its best sentence reaches
// keep.
func confident(us []*unit, keep float64) bool {
	for _, u := range us {
		if u.prob >= keep {
			return true
		}
	}
	return false
}

// keepBest keeps at most n sentences of a field, preferring those under a
// heading that names the field, then the strongest cues, in article order.
func keepBest(us []*unit, n int) []*unit {
	if len(us) <= n {
		return us
	}
	ranked := slices.Clone(us)
	rank := func(u *unit) float64 {
		if u.prob > 0 {
			return u.prob
		}
		r := u.scores[u.assigned]
		if u.kind == u.assigned {
			r += 10
		}
		return r
	}
	slices.SortStableFunc(ranked, func(x, y *unit) int { return cmp.Compare(rank(y), rank(x)) })
	ranked = ranked[:n]
	slices.SortFunc(ranked, func(x, y *unit) int { return cmp.Compare(x.start, y.start) })
	return ranked
}

// confidence of one routed sentence: a heading that names the field is the
// best evidence, a strong cue next, a lone weak cue least.
func (u *unit) confidence() float64 {
	c := 0.4
	if u.kind == u.assigned {
		c = 0.75
	}
	if u.scores[u.assigned] >= 3 {
		c += 0.15
	}
	return min(c, 0.95)
}

func joinText(us []*unit) string {
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = u.text
	}
	return strings.Join(parts, " ")
}

// items makes one list item per block: sentences routed together from one
// list item or paragraph stay one item.
func items(us []*unit) []string {
	var out []string
	last := -1
	for _, u := range us {
		if u.block == last && len(out) > 0 {
			out[len(out)-1] += " " + u.text
			continue
		}
		out = append(out, u.text)
		last = u.block
	}
	return out
}

// sortedKeys returns the keys of m with a positive score, best first.
func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
