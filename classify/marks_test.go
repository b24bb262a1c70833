package classify

import (
	"testing"
)

// The sentence marks ride the field scan: each mark set must be found
// exactly where its own scan finds it.

// marksOf collects the mark bits of low as sentenceScores' scan does.
func marksOf(low string) marks {
	var m marks
	compiled(allFieldCues).eachAt(low, func(ci, _ int) bool {
		if allFieldOf[ci] == fNone {
			m |= allMarkOf[ci]
		}
		return true
	})
	return m
}

// marksPlain asks every mark set on its own, as sentenceScores did.
func marksPlain(low string) marks {
	var m marks
	for i, cs := range sentenceMarks {
		if cs.any(low) {
			m |= 1 << i
		}
	}
	return m
}

func TestSentenceMarksRideTheFieldScan(t *testing.T) {
	if len(sentenceMarks) > 16 {
		t.Fatalf("%d marks do not fit the marks type's 16 bits", len(sentenceMarks))
	}
	for i, cs := range sentenceMarks {
		for _, c := range cs {
			low := "so " + c.text + " then"
			if marksOf(low)&(1<<i) == 0 {
				t.Errorf("mark %d cue %q: not found by the field scan", i, c.text)
			}
		}
	}
	for _, low := range []string{"", "we apologize for the outage", "at first we suspected the network, and it was",
		"пул больше не падал", "排除了网络问题，最后发现是配置", "no alert fired", "the pod kept restarting"} {
		if got, want := marksOf(low), marksPlain(low); got != want {
			t.Errorf("marks(%q) = %b, want %b", low, got, want)
		}
	}
}

func FuzzSentenceMarks(f *testing.F) {
	for _, s := range []string{"we are sorry, no longer failing", "果然是配置问题", "ruled out the disk"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, low string) {
		if got, want := marksOf(low), marksPlain(low); got != want {
			t.Errorf("marks(%q) = %b, want %b", low, got, want)
		}
	})
}
