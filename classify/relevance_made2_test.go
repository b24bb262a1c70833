package classify

import "testing"

// The second made-up relevance set (testdata/relevance-made2, see its
// README): 60 posts of 15 invented blogs, a third of them incidents in six
// or seven shapes per language, the rest the hard negatives issue #10 lists
// (guides laid out as symptom / cause / fix, advisories, point releases,
// regression tooling, conference notes, years in review, essays, tutorials
// that break a system on purpose). Written in session 17 by helpers who had
// not seen the code; no rule or cue list reads it and the shipped fit does
// not (a fit on it was tried and not kept, see the README), so what the
// shipped gate scores here is held out.
const made2Dir = "testdata/relevance-made2"

// made2Floors guard the shipped gate there: measured at its writing (the gate
// of fb0f253) F1 0.56 / 0.74 / 0.59, recall 0.83 / 1.00 / 0.71, kept 1.00
// in each language, less about one post. Precision (0.42 / 0.58 / 0.50) is
// what is weak: half the posts it judges incidents are not.
var made2Floors = map[string]relevanceFloor{
	"en": {0.50, 0.66, 0.83}, // 6 incidents
	"ru": {0.66, 0.85, 0.85}, // 7
	"zh": {0.52, 0.57, 0.85}, // 7
}

// made2FlaggedCeiling bounds the flagged lane's share of the drafts there
// (measured 0.37, 20 of 54; the issue asks at most 0.15).
const made2FlaggedCeiling = 0.42

func TestRelevanceHardNegatives(t *testing.T) {
	figs := tallyRelevance(t, loadRelevanceSet(t, made2Dir))
	t.Log(figuresTable("second made-up set (held out), shipped gate:", figs))
	checkRelevanceFloors(t, figs, made2Floors, made2FlaggedCeiling, 20)
}
