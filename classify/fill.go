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

// fill writes the routed sentences and the labels into cs.
func (a *analysis) fill(cs *casebook.Case) {
	byField := map[field][]*unit{}
	for i := range a.units {
		u := &a.units[i]
		if u.assigned != fNone {
			byField[u.assigned] = append(byField[u.assigned], u)
		}
	}
	for fl, us := range byField {
		byField[fl] = keepBest(us, fieldCap[fl])
	}
	ev := cs.Extraction.Evidence
	conf := cs.Extraction.Confidence
	put := func(f field, us []*unit) {
		if len(us) == 0 {
			return
		}
		name := fieldNames[f]
		sum := 0.0
		for _, u := range us {
			ev[name] = append(ev[name], casebook.Span{Start: u.start, End: u.end})
			sum += u.confidence()
		}
		conf[name] = round2(sum / float64(len(us)))
	}
	for _, f := range contentFields {
		us := byField[f]
		put(f, us)
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
	a.fillImpact(cs)
	a.fillLabels(cs, byField)
	a.fillTags(cs)
	a.fillSummary(cs, byField)
	if cs.IncidentDate == "" {
		if d, sp, ok := a.incidentDate(); ok {
			cs.IncidentDate = d
			ev["incident_date"] = []casebook.Span{sp}
			conf["incident_date"] = 0.6
		}
	}
	if cs.Organization == "" {
		cs.Organization = textOrganization(a.doc.Title, a.doc.Text)
	}
}

// keepBest keeps at most n sentences of a field, preferring those under a
// heading that names the field, then the strongest cues, in article order.
func keepBest(us []*unit, n int) []*unit {
	if len(us) <= n {
		return us
	}
	ranked := slices.Clone(us)
	rank := func(u *unit) float64 {
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
