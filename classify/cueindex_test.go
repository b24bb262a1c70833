package classify

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// scanCues is what cueIndex.eachAt computes, the slow way: every
// occurrence of every cue where a word starts (at any Han character), or
// anywhere for a cue that opens with punctuation, ending a word too when
// whole. The index's key bits must never skip one of these.
func scanCues(cs cueSet, whole bool, low string) [][2]int {
	var out [][2]int
	for ci, c := range cs {
		r0, _ := utf8.DecodeRuneInString(c.text)
		anywhere := !unicode.IsLetter(r0) && !unicode.IsDigit(r0)
		for from := 0; ; {
			k := strings.Index(low[from:], c.text)
			if k < 0 {
				break
			}
			at := from + k
			from = at + 1
			if !anywhere {
				r, _ := utf8.DecodeRuneInString(low[at:])
				han, _ := runeClass(r)
				prevWord := false
				if at > 0 {
					p, _ := utf8.DecodeLastRuneInString(low[:at])
					if p < utf8.RuneSelf {
						prevWord = p >= 'a' && p <= 'z' || p >= '0' && p <= '9' || p >= 'A' && p <= 'Z'
					} else {
						_, prevWord = runeClass(p)
					}
				}
				if !han && prevWord || whole && !endsWord(low, at+len(c.text), c.text) {
					continue
				}
			} else {
				from = at + len(c.text)
			}
			out = append(out, [2]int{ci, at})
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[1] != b[1] {
			return a[1] - b[1]
		}
		return a[0] - b[0]
	})
	return out
}

func indexedCues(cs cueSet, whole bool, low string) [][2]int {
	var out [][2]int
	compiledWith(cs, whole).eachAt(low, func(ci, at int) bool {
		out = append(out, [2]int{ci, at})
		return true
	})
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[1] != b[1] {
			return a[1] - b[1]
		}
		return a[0] - b[0]
	})
	return out
}

var cueIndexSeeds = []string{
	"the deploy failed with a timeout error; rollback fixed it",
	"сервис упал из-за ошибки конфигурации, откатили релиз",
	"线上服务故障，原因是配置错误，回滚后恢复",
	"kubernetes k8s postgres redis-cluster nginx: 502 bad gateway",
	"mixed: 告警 alert сбой fail 失败\xff\xfe broken utf-8 ",
	"runs into words: failсбой k8sпод упалfail ошибка500 сбой失败fail",
	"",
}

func checkCueIndex(t *testing.T, low string) {
	t.Helper()
	for _, set := range []struct {
		name  string
		cs    cueSet
		whole bool
	}{{"failure", failureCues, false}, {"postmortem", postmortemCues, false}, {"tech", techCues, false}, {"tags", foldedTags, true}} {
		want, got := scanCues(set.cs, set.whole, low), indexedCues(set.cs, set.whole, low)
		if !slices.Equal(want, got) {
			t.Fatalf("%s cues in %q: index found %v, a scan %v", set.name, low, got, want)
		}
	}
}

func TestCueIndexMatchesScan(t *testing.T) {
	for _, s := range cueIndexSeeds {
		checkCueIndex(t, strings.ToLower(s))
	}
}

func FuzzCueIndex(f *testing.F) {
	for _, s := range cueIndexSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCueIndex(t, strings.ToLower(s))
	})
}
