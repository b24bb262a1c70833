package classify

import (
	"fmt"
	"strings"
	"testing"
)

// The second made-up relevance set (testdata/relevance-made2, see its
// README): 60 posts of 15 invented blogs, a third of them incidents in six
// or seven shapes per language, the rest the hard negatives issue #10 lists
// (guides laid out as symptom / cause / fix, advisories, point releases,
// regression tooling, conference notes, years in review, essays, tutorials
// that break a system on purpose). Written in session 17 by helpers who had
// not seen the code; no rule, cue list or fit reads it, so what the shipped
// gate scores here is held out.
const made2Dir = "testdata/relevance-made2"

// made2Floors guard the shipped gate there: measured at its writing (the gate
// of fb0f253) F1 0.56 / 0.74 / 0.59, recall 0.83 / 1.00 / 0.71, kept 1.00
// in each language, less about one post. Precision (0.42 / 0.58 / 0.50) is
// what is weak: half the posts it judges incidents are not.
var made2Floors = map[string]struct{ f1, recall, kept float64 }{
	"en": {0.50, 0.66, 0.83}, // 6 incidents
	"ru": {0.66, 0.85, 0.85}, // 7
	"zh": {0.52, 0.57, 0.85}, // 7
}

// made2FlaggedCeiling bounds the flagged lane's share of the drafts there
// (measured 0.37, 20 of 54; the issue asks at most 0.15).
const made2FlaggedCeiling = 0.42

func TestRelevanceHardNegatives(t *testing.T) {
	res := loadRelevanceSet(t, made2Dir)
	figs := map[string]*unseenFigures{}
	for _, k := range []string{"en", "ru", "zh", "all"} {
		figs[k] = &unseenFigures{}
	}
	for _, r := range res {
		if r.lang != r.unseenPost.lang {
			t.Errorf("%s: language %s, labelled %s", r.path, r.lang, r.unseenPost.lang)
		}
		for _, k := range []string{r.unseenPost.lang, "all"} {
			f := figs[k]
			f.n++
			switch yes := r.rel.IsPostmortem; {
			case r.label && yes:
				f.tp++
			case r.label:
				f.fn++
			case yes:
				f.fp++
			}
			if r.label {
				f.pos++
				if r.rel.Band != BandNotIncident {
					f.kept++
				}
			}
			if r.rel.Band != BandNotIncident {
				f.drafted++
			}
			if r.rel.Band == BandUncertain {
				f.flagged++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "second made-up set (held out), shipped gate:\nlang   n pos     P     R    F1  flagged/drafted  kept R\n")
	for _, k := range []string{"en", "ru", "zh", "all"} {
		f := figs[k]
		fmt.Fprintf(&b, "%-4s %3d %3d  %.2f  %.2f  %.2f  %3d/%-3d %.2f     %.2f\n", k, f.n, f.pos, f.precision(), f.recall(), f.f1(),
			f.flagged, f.drafted, ratioOr0(f.flagged, f.drafted), ratioOr0(f.kept, f.pos))
	}
	t.Log(b.String())
	if got := ratioOr0(figs["all"].flagged, figs["all"].drafted); got > made2FlaggedCeiling {
		t.Errorf("flagged lane %.2f of the drafts, ceiling %.2f", got, made2FlaggedCeiling)
	}
	for lang, fl := range made2Floors {
		f := figs[lang]
		if f.n != 20 || f.pos < 6 {
			t.Errorf("%s: %d posts, %d incidents; want 20 and at least 6", lang, f.n, f.pos)
			continue
		}
		if f.f1() < fl.f1 {
			t.Errorf("%s: F1 %.2f under the floor %.2f", lang, f.f1(), fl.f1)
		}
		if f.recall() < fl.recall {
			t.Errorf("%s: recall %.2f under the floor %.2f", lang, f.recall(), fl.recall)
		}
		if k := ratioOr0(f.kept, f.pos); k < fl.kept {
			t.Errorf("%s: incidents not skipped %.2f under the floor %.2f", lang, k, fl.kept)
		}
	}
}
