package classify

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

// Labels that introduce a stated length of time, per impact field.
var durationLabels = []struct {
	field  string
	labels cueSet
}{
	{"time_to_detect", cues("time to detection", "time to detect", "time to discovery", "time to discover",
		"time to acknowledge", "ttd", "mttd", "время обнаружения", "время до обнаружения", "обнаружили через",
		"заметили через", "发现耗时", "发现用时", "检测耗时", "发现时间")},
	{"time_to_resolve", cues("time to recovery", "time to recover", "time to resolution", "time to resolve",
		"time to repair", "time to mitigate", "time to mitigation", "time to restore", "ttr", "mttr",
		"время восстановления", "время устранения", "время решения", "время до восстановления",
		"восстановили через", "恢复时间", "恢复耗时", "修复耗时", "修复时间", "处理时长", "解决耗时")},
	{"duration", cues("duration", "downtime", "total downtime", "outage lasting", "outage lasted", "an outage of", "lasted for", "lasted",
		"lasting", "for a total of", "длительность", "продолжительность", "длился", "длилась", "длилось",
		"продолжался", "продолжалась", "продолжалось", "время простоя", "持续了", "持续", "时长", "历时", "共计", "停机时间", "宕机时间", "中断时间")},
}

var (
	severityRe = regexp.MustCompile(`(?i)(?:severity|sev|серь[её]зность|критичность|уровень|严重程度|严重级别|故障等级|事故等级)\s*(?:level)?\s*[:：=-]?\s*(\*\*)?\s*([\p{L}\p{N}-]{1,12})`)
	sevCodeRe  = regexp.MustCompile(`\b(?:SEV|Sev|sev)[- ]?([0-4])\b`)
	regionRe   = regexp.MustCompile(`\b((?:US|EU|EMEA|APAC|Asia|Europe|North America|South America|[a-z]{2}-[a-z]+-\d)(?: region)?)\b`)
	usersRe    = regexp.MustCompile(`(?i)(?:users affected|affected users|customers affected|затронуто пользователей|影响用户数?|受影响用户)\s*[:：]\s*([^\n.;。；]{1,60})`)
)

// Cheap word checks before the regular expressions run.
var (
	severityHint = cues("severity", "sev", "серьёзность", "серьезность", "критичность", "уровень", "严重", "等级")
	usersHint    = cues("users", "affected", "customers", "пользовател", "影响", "受影响")
)

var impactIndex = mergeLabels(map[string]cueSet{
	"time_to_detect": durationLabels[0].labels, "time_to_resolve": durationLabels[1].labels,
	"duration": durationLabels[2].labels, "severity": severityHint, "users": usersHint,
})

// fillImpact reads stated durations, severity, scope, users and region.
func (a *analysis) fillImpact(cs *casebook.Case) {
	ev := cs.Extraction.Evidence
	conf := cs.Extraction.Confidence
	// durations are read from whole blocks: a label such as "Time to
	// detection:" may have been taken off the sentence as a heading
	present := impactIndex.counts(a.low) // one scan for every label and hint
	for _, dl := range durationLabels {
		if present[dl.field] == 0 {
			continue
		}
	blocks:
		for _, sec := range a.doc.Sections {
			for _, b := range sec.Blocks {
				if b.Kind == extract.Code {
					continue
				}
				low := strings.ToLower(b.Text)
				if !dl.labels.any(low) {
					continue
				}
				iso, off, ok := labelledDuration(b.Text, low, dl.labels)
				if !ok {
					continue
				}
				switch dl.field {
				case "time_to_detect":
					cs.Impact.TimeToDetect = iso
				case "time_to_resolve":
					cs.Impact.TimeToResolve = iso
				case "duration":
					cs.Impact.Duration = iso
				}
				ev["impact."+dl.field] = []casebook.Span{{Start: b.Start + off, End: b.End}}
				conf["impact."+dl.field] = 0.8
				break blocks
			}
		}
	}
	sevHint, userHint := present["severity"] > 0, present["users"] > 0
	for i := range a.units {
		u := &a.units[i]
		if !sevHint && !userHint {
			break
		}
		if cs.Impact.Severity == "" && sevHint && severityHint.any(u.low) {
			if m := severityRe.FindStringSubmatchIndex(u.text); m != nil && severityWord(u.text[m[4]:m[5]]) {
				cs.Impact.Severity = strings.ToLower(u.text[m[4]:m[5]])
				ev["impact.severity"] = []casebook.Span{{Start: u.start + m[4], End: u.start + m[5]}}
				conf["impact.severity"] = 0.8
			} else if m := sevCodeRe.FindStringIndex(u.text); m != nil {
				cs.Impact.Severity = u.text[m[0]:m[1]]
				ev["impact.severity"] = []casebook.Span{{Start: u.start + m[0], End: u.start + m[1]}}
				conf["impact.severity"] = 0.7
			}
		}
		if cs.Impact.UsersAffected == "" && userHint && usersHint.any(u.low) {
			if m := usersRe.FindStringSubmatchIndex(u.text); m != nil {
				cs.Impact.UsersAffected = strings.TrimSpace(u.text[m[2]:m[3]])
				ev["impact.users_affected"] = []casebook.Span{{Start: u.start + m[2], End: u.start + m[3]}}
				conf["impact.users_affected"] = 0.7
			}
		}
	}
	// Scope: the first sentence of an impact section, else the first clause
	// of a symptom sentence that says how much was affected ("for all
	// services", "78% of requests", "少部分请求会超时").
	for i := range a.units {
		u := &a.units[i]
		if u.kind == fImpact && len(u.text) < 300 {
			a.setScope(cs, u, 0, len(u.text), 0.6)
			break
		}
	}
	if cs.Impact.Scope == "" {
		seen := 0
		for i := range a.units {
			u := &a.units[i]
			if u.assigned != fSymptoms {
				continue
			}
			if s, e, ok := scopeClause(u.text); ok {
				a.setScope(cs, u, s, e, 0.4)
				break
			}
			if seen++; seen >= 3 {
				break
			}
		}
	}
}

func (a *analysis) setScope(cs *casebook.Case, u *unit, s, e int, c float64) {
	t := strings.TrimRight(u.text[s:e], ".。 ")
	cs.Impact.Scope = t
	cs.Extraction.Evidence["impact.scope"] = []casebook.Span{{Start: u.start + s, End: u.start + s + len(t)}}
	cs.Extraction.Confidence["impact.scope"] = c
	if m := regionRe.FindStringIndex(t); m != nil && strings.Contains(strings.ToLower(t), "region") {
		cs.Impact.Region = t[m[0]:m[1]]
		cs.Extraction.Evidence["impact.region"] = []casebook.Span{{Start: u.start + s + m[0], End: u.start + s + m[1]}}
		cs.Extraction.Confidence["impact.region"] = c
	}
}

// scopeCues name how much of a system or its users a failure reached.
var scopeCues = cues("all services", "all users", "all customers", "all requests", "every request", "most requests",
	"some requests", "portion of", "% of", "subset of", "some customers", "some users", "a number of customers",
	"a small number of", "many customers", "all regions", "multiple regions", "the site", "the website", "whole cluster", "entire", "all of our",
	"для всех", "всех пользователей", "части пользователей", "части клиентов", "некоторых пользователей", "некоторых клиентов", "часть запросов", "весь сайт", "всех сервисов",
	"所有", "全部", "部分", "少部分", "大部分", "整个", "全站", "用户")

// scopeClause finds, in a symptom sentence, the clause (between commas or
// semicolons) that states a scope beside a failure word.
func scopeClause(text string) (int, int, bool) {
	start := 0
	for i := 0; i <= len(text); {
		end := i == len(text)
		var r rune
		n := 1
		if !end {
			r, n = utf8.DecodeRuneInString(text[i:])
		}
		if end || r == ',' || r == ';' || r == '，' || r == '；' || r == '—' {
			clause := strings.ToLower(text[start:i])
			if scopeCues.any(clause) && fieldCues[fSymptoms].any(clause) {
				s := start
				for s < i && text[s] == ' ' {
					s++
				}
				return s, i, true
			}
			start = i + n
		}
		i += n
	}
	return 0, 0, false
}

// severityWord accepts the words a severity is stated in.
func severityWord(w string) bool {
	switch strings.ToLower(w) {
	case "low", "medium", "high", "critical", "major", "minor", "sev1", "sev2", "sev3", "sev4", "p0", "p1", "p2", "p3", "p4",
		"1", "2", "3", "4", "низкая", "средняя", "высокая", "критическая", "低", "中", "高", "严重", "一般", "紧急":
		return true
	}
	return false
}

// labelledDuration finds a label of labels in low and parses the duration
// after it (within a few characters: a colon, "of", "about").
func labelledDuration(text, low string, labels cueSet) (string, int, bool) {
	for _, l := range labels {
		i := indexWord(low, l.text)
		if i < 0 {
			continue
		}
		j := i + len(l.text)
		if j < len(low) {
			// the label must end its word: "duration" not "durations of the scan"
			r := low[j]
			if r >= 'a' && r <= 'z' {
				continue
			}
		}
		rest := text[j:]
		// the figure follows within a few characters: ": ", " of about ", "了约"
		k := 0
		for k < len(rest) && k < 24 {
			if iso, n, ok := ParseDuration(rest[k:]); ok && n > 0 {
				return iso, j + k, true
			}
			// step over one rune
			_, sz := utf8.DecodeRuneInString(rest[k:])
			k += sz
		}
	}
	return "", 0, false
}
