package classify

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook/extract"
)

// English stories told without field headings (a personal blog's bug hunt,
// an engineering post's prose, a game studio's apology) keep an order: what
// was seen, how it was found out, the cause as found ("it turned out…", "the
// root cause was…") and its explanation, then the steps taken ("I pointed…",
// "we cancelled…"), the plans and the conclusions. The cue lists read each
// sentence alone; storyEN reads the order, for English posts only (the
// markers are English) and only in sections no field heading names.

// storyKind reports a section kind whose sentences the story's order may
// route: untitled text, summaries and investigations, a vague "problem".
func storyKind(k field) bool {
	return k == fNarrative || k == fAnalysis || k == fProblem
}

// mostlyLatin reports prose whose letters are nearly all Latin: an English
// post (a Russian or Chinese one quotes English, but not this much).
func mostlyLatin(low string) bool {
	latin, other := 0, 0
	for _, r := range low {
		switch {
		case r < utf8.RuneSelf:
			if r >= 'a' && r <= 'z' {
				latin++
			}
		case unicode.Is(unicode.Cyrillic, r) || isHanRune(r):
			other++
		}
	}
	return latin > 0 && other*20 < latin
}

// causeRunsOn is how many sentences after a cause stated as found (in its
// paragraph) explain it: "It turned out the script never deleted old
// archives. The cleanup step used a relative path, …".
const causeRunsOn = 3

// causePivot states the cause as found ("It turned out that…", "The root
// cause was…"), as against a sentence that only names causes ("a different
// root cause").
var causePivot = cues("turned out", "problem started when", "issue started when", "outage started when",
	"trouble started when", "it all started when", "we found that", "i found that", "we discovered that", "i discovered that",
	"we found a ", "we found an ", "we found the ", "i found a ", "i found an ", "i found the ", "the root cause was", "the root cause is", "the root cause of this", "root cause was",
	"the cause was", "the cause is", "was caused by", "were caused by", "is caused by", "the problem was",
	"the issue was", "the bug was", "the culprit", "the reason was", "the reason is", "finally found",
	"eventually found", "in the end it was", "the underlying cause")

// foundIt announces a finding told in the next paragraph ("After a day of
// digging, I found it.", "That is when I figured it out.").
var foundIt = cues("found it", "found the problem", "found the bug", "found the culprit", "found the cause",
	"figured it out")

// investigationStep opens a sentence that tells a step of the search ("I
// started by comparing…", "We checked the obvious things first."): unless it
// reports what was seen, its failure words name what was looked at, not a
// symptom.
var investigationStep = cues("i started by", "we started by", "i began by", "we began by", "i compared", "we compared",
	"i checked", "we checked", "i looked at", "we looked at", "i ran ", "we ran ", "i tried", "we tried",
	"i searched", "we searched", "i went through", "we went through", "my first idea", "our first idea")

// stepShows marks a step that reports its result ("…and saw 500s",
// "…showed that…"): then its failure words are a symptom seen.
var stepShows = cues("saw", "showed", "shows", "revealed", "found", "returned", "came back with", "said", "noticed",
	"observed", "discovered", "received", "got ", "experienced", "were seeing", "was seeing", "encounter", "ran into", "hit ", "faced")

// recoveredEN tells a failure ended ("error rates returned to normal"):
// its failure words are no symptom.
var recoveredEN = cues("returned to normal", "return to normal", "returns to normal", "back to normal", "recovered",
	"went away", "stopped failing", "no longer", "went back to", "dropped back", "back to zero", "available again",
	"working normally again", "working again")

// shown tells what a screen or a browser showed ("Browsers showed a 'Your
// connection is not private' warning").
var shown = cues("showed", "displayed", "shows", "displays", "popped up")

// alertAdded tells an alert set up after the incident: a follow-up, not
// how the incident was found.
var alertAdded = cues("added an alert", "add an alert", "adding an alert", "added alerts", "add alerts", "set up an alert",
	"set up alerts", "added alerting", "added monitoring", "new alert")

// unaffected tells what was not hit ("Desktop users were not affected"):
// the incident's scope, not a symptom.
var unaffected = cues("not affected", "unaffected", "not impacted", "no data was lost", "kept working", "continued to work",
	"continued working", "were not impacted")

// strongLessons are the lesson cues that name a lesson outright ("lesson",
// "in hindsight"), as against "always" and "never", which also tell how
// often something happened.
var strongLessons = strongCues(fLessons)

// strongSymptoms are the symptom cues that name one outright ("symptom",
// "users saw").
var strongSymptoms = strongCues(fSymptoms)

// strongCues are f's cues of weight 2 or more.
func strongCues(f field) cueSet {
	var cs cueSet
	for _, c := range fieldCues[f] {
		if c.weight >= 2 {
			cs = append(cs, c)
		}
	}
	return cs
}

// adviceOpener is an imperative a conclusion opens with, addressed to the
// reader or oneself ("Always check…", "Don't assume…", "If you run X, make
// sure…").
var adviceOpener = cues("always ", "never ", "don't ", "do not ", "make sure ", "be sure ", "remember to ",
	"remember that ", "avoid ", "beware ", "double-check ", "test your ", "check your ")

// notFixVerb are past forms that tell looking, thinking or waiting, not a
// step taken: "we noticed", "I thought", "we waited".
var notFixVerb = map[string]bool{
	"noticed": true, "looked": true, "checked": true, "tried": true, "realized": true, "realised": true,
	"wondered": true, "suspected": true, "assumed": true, "learned": true, "learnt": true, "started": true,
	"investigated": true, "observed": true, "compared": true, "asked": true, "searched": true,
	"discovered": true, "figured": true, "believed": true, "expected": true, "hoped": true, "wanted": true,
	"needed": true, "noted": true, "confirmed": true, "verified": true, "tested": true, "reproduced": true,
	"traced": true, "identified": true, "determined": true, "waited": true, "received": true, "decided": true,
	"considered": true, "managed": true, "guessed": true, "googled": true, "debugged": true,
	"analyzed": true, "analysed": true, "inspected": true, "examined": true, "monitored": true, "watched": true,
	"called": true, "talked": true, "discussed": true, "agreed": true, "planned": true,
	"used": true, "lined": true, "dug": true, "noticing": true, "concluded": true, "seemed": true, "happened": true,
	"appeared": true, "failed": true, "missed": true, "opened": true, "filed": true, "reported": true,
	"published": true, "released": true, "deployed": true, "shipped": true, "introduced": true, "caused": true,
}

// fixVerbs are irregular past forms of steps ("we set", "I rewrote").
var fixVerbs = map[string]bool{
	"set": true, "put": true, "rewrote": true, "rebuilt": true, "made": true, "wrote": true, "built": true,
	"cut": true, "split": true, "shut": true, "took": true, "threw": true, "bumped": true, "reran": true,
	"undid": true, "froze": true, "spun": true, "swapped": true, "kicked": true,
}

// subjectNouns are the people a status report tells as doing a step ("our
// engineers", "an engineer", "the team").
var subjectNouns = map[string]bool{"engineers": true, "engineer": true, "team": true, "operators": true, "operator": true}

// presentFixVerbs are steps as a story told in the present says them ("I
// drop the slot", "we roll back"), without a modal.
var presentFixVerbs = map[string]bool{
	"drop": true, "delete": true, "remove": true, "kill": true, "restart": true, "revert": true, "roll": true,
	"disable": true, "raise": true, "increase": true, "bump": true, "flush": true, "clear": true, "unplug": true,
	"reboot": true, "redeploy": true, "rollback": true, "cancel": true, "stop": true, "scale": true, "patch": true,
}

// modal marks a sentence that plans, advises or supposes ("we will", "you
// should", "we can").
var modal = cues("will ", "would ", "should ", "could ", "can ", "must ", "need to", "needs to", "have to", "going to", "'ll ")

// stepLeads may stand between "we"/"I" and the verb of a step.
var stepLeads = map[string]bool{
	"then": true, "also": true, "finally": true, "first": true, "quickly": true, "temporarily": true,
	"manually": true, "immediately": true, "eventually": true, "simply": true, "just": true, "next": true,
	"afterwards": true, "afterward": true, "later": true,
}

// firstPersonAct reads a sentence whose main clause is "we/I (then,
// also…) <past verb>" (or "engineers", "the team", "our engineers" as
// status reports tell it): act when it tells something done ("we checked",
// "I pointed the cache at…", "To get everyone back in, we temporarily
// limited…"), step when the verb is one of doing, not of looking, thinking
// or waiting, as a fix is told once its cause is known.
func firstPersonAct(low string) (act, step bool) {
	words := strings.FieldsFunc(low, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '\'' || r == '-' || r == ',')
	})
	for i := 0; i < len(words) && i < 10; i++ {
		w := strings.TrimSuffix(words[i], ",")
		n := 0 // words of the subject before the verb
		switch {
		case w == "we" || w == "i" || w == "engineers" || w == "operators":
		case (w == "our" || w == "the" || w == "an" || w == "one") && i+1 < len(words) && subjectNouns[words[i+1]]:
			n = 1
		case (w == "our" || w == "the") && i+2 < len(words) && words[i+2] == "team":
			n = 2 // "our IT team", "the support team"
		default:
			continue
		}
		// the subject opens the sentence or follows a leading clause's comma
		if i > 0 && !strings.HasSuffix(words[i-1], ",") && !stepLeads[strings.TrimSuffix(words[i-1], ",")] && words[i-1] != "so" && words[i-1] != "and" {
			continue
		}
		for j := i + 1 + n; j < len(words) && j <= i+n+3; j++ {
			v := strings.TrimSuffix(words[j], ",")
			if stepLeads[v] {
				continue
			}
			past := fixVerbs[v] || notFixVerb[v] || len(v) > 4 && strings.HasSuffix(v, "ed") && !strings.HasSuffix(v, "eed")
			if !past && presentFixVerbs[v] && !modal.any(low) {
				// a story told in the present: "I drop the unused slot."
				return true, true
			}
			return past, past && !notFixVerb[v]
		}
		return false, false
	}
	return false, false
}

// firstPersonStep reports a step taken, told as "we/I <past verb>".
func firstPersonStep(low string) bool {
	_, step := firstPersonAct(low)
	return step
}

// storyEN routes, in an English post, the sentences of untitled sections
// that the cue lists leave out or misread, by their place in the story.
func (a *analysis) storyEN() {
	if !mostlyLatin(a.low) {
		return
	}
	a.leadInLists()
	a.timelineTables()
	a.problemSections()
	a.dualHeadings()
	a.becauseSymptoms()
	units := a.units
	secOf := a.sectionOf()
	causeSeen := false
	toldBlock := -1 // the first paragraph that told a symptom or how it was found
	runOn := 0      // cause sentences still to follow the pivot in its block
	nextBlock := -1 // the block a "found it" announcement hands the cause to
	for i := range units {
		u := &units[i]
		newBlock := i == 0 || units[i-1].block != u.block
		if newBlock {
			runOn = 0
		}
		// "error rates returned to normal": the failure ended; "desktop
		// users were not affected": the scope. Neither is a symptom.
		noSymptom := recoveredEN.any(u.low) && u.kind != fSymptoms || unaffected.any(u.low)
		if u.assigned == fSymptoms && noSymptom {
			u.assigned = fNone
		}
		if boilerplateEN.any(u.low) {
			// "This incident has been resolved.", "Posted 2 days ago."
			u.assigned = fNone
			continue
		}
		if u.assigned == fDetection && alertAdded.any(u.low) && !isFieldKind(u.kind) {
			// "We have since added an alert that fires…": a follow-up
			u.assigned = fActionItems
		}
		if u.kind == fImpact && u.assigned == fNone && !u.advice && u.scores[fSymptoms] >= 1 && experienced.any(u.low) {
			// "Customers saw 'Payment declined'": what users met with
			u.assigned = fSymptoms
		}
		if u.kind != a.secKinds[secOf[i]] && !storyKind(u.kind) && !u.advice && imperativeAdvice(u.low) {
			// "The fix was simple: …" heads the paragraphs after it, but
			// "If your Pi drops off, check…" is advice, not a step
			u.assigned, u.advice = fLessons, true
		}
		if storyKind(u.kind) && u.assigned == fRemediation && pluperfect.MatchString(u.low) {
			// "the router had rebooted after a fault": what had happened
			// before, not a step taken
			if sc, _ := sentenceScores(pluperfect.ReplaceAllString(u.low, "")); sc[fRemediation] == 0 {
				u.assigned = fNone
			}
		}
		if !storyKind(u.kind) {
			switch u.kind {
			case fRootCause, fRemediation, fActionItems, fLessons, fRecap:
				causeSeen = true // the story is past what was seen
			}
			if u.assigned == fRootCause {
				causeSeen = true
			}
			continue
		}
		if u.assigned == fDetection && toldBlock >= 0 && toldBlock != u.block && noticedOnly(u) {
			// "After some poking around, I noticed that cluster names timed
			// out": seen while searching, once the incident was known
			u.assigned = fSymptoms
		}
		if toldBlock < 0 && (u.assigned == fSymptoms || u.assigned == fDetection) {
			toldBlock = u.block
		}
		free := u.assigned == fNone && !u.advice && !isQuestion(u.text) && !isLeadIn(u.text)
		act, step := firstPersonAct(u.low)
		// a sentence that may explain a cause: no plan, lesson or strong fix
		// word, and nothing we/I did ("the image had moved the cache")
		plain := free && u.scores[fRemediation] < 2 && u.scores[fActionItems] == 0 && u.scores[fLessons] < 2 && !strongLessons.any(u.low) && !act
		switch {
		case metaSentence(u.low):
			// "This post explains what went wrong and what we are changing."
			u.assigned = fNone
			continue
		case u.assigned == fActionItems && planLead.any(u.low):
			// "We are making several changes as a result of this event.":
			// the rest of the paragraph tells them
			for j := i + 1; j < len(units) && units[j].block == u.block; j++ {
				if units[j].assigned == fNone && !units[j].advice && !apology.any(units[j].low) {
					units[j].assigned = fActionItems
				}
			}
			continue
		case u.assigned == fRootCause && causePivot.any(u.low) && !notCause.any(u.low):
			// the cause stated as found: its explanation may run on
			causeSeen = true
			runOn = causeRunsOn
			continue
		case runOn > 0 && !newBlock && (plain || weakSymptom(u)):
			u.assigned = fRootCause
			if u.scores[fTrigger] > 0 && u.scores[fTrigger] >= u.scores[fRootCause] {
				// "The image had been rolled out the week before": what set
				// the cause off
				u.assigned = fTrigger
			}
			causeSeen = true
			runOn--
			continue
		case u.block == nextBlock && plain:
			// "I found it." ends a paragraph: the next one tells what
			u.assigned = fRootCause
			causeSeen = true
			runOn = causeRunsOn - 1
			nextBlock = -1
			continue
		case u.assigned == fNone && foundIt.any(u.low):
			// "After a day of digging, I found it.": what follows in its
			// paragraph, or the next paragraph, tells what was found
			if i+1 < len(units) && units[i+1].block == u.block {
				runOn = causeRunsOn
			} else if i+1 < len(units) {
				nextBlock = units[i+1].block
			}
			continue
		}
		if u.assigned == fRootCause {
			causeSeen = true
		}
		switch {
		case causeSeen && free && step && u.bkind == extract.Paragraph &&
			u.scores[fActionItems] == 0 && u.scores[fSymptoms] < narrativeMin:
			// after the cause, what we/I did is a step taken
			u.assigned = fRemediation
		case causeSeen && free && u.bkind == extract.Paragraph && u.scores[fRemediation] >= 1 && leads(u.scores, fRemediation) &&
			passiveStep.MatchString(u.low):
			// "The faulty router was replaced the same evening."
			u.assigned = fRemediation
		case u.assigned == fSymptoms && !causeSeen && act && !stepShows.any(u.low) && u.scores[fSymptoms] < 2+earlyBonus:
			// "I started by comparing the logs of a slow build", "We then
			// lined up the spikes with the deploys": a step of the search
			u.assigned = fNone
		case !causeSeen && free && (!act || stepShows.any(u.low)) && u.kind == fNarrative && u.bkind == extract.Paragraph && u.scores[fSymptoms] >= 1 &&
			leads(u.scores, fSymptoms) && !noSymptom && !hypothetical.any(u.low):
			// a failure told before the cause is known is what was seen
			u.assigned = fSymptoms
		case !causeSeen && u.assigned == fNone && u.kind == fNarrative && (experienced.any(u.low) || shown.any(u.low)) &&
			quotesMessage(u.text) && !noSymptom:
			// "Customers saw the message 'Something went wrong'"
			u.assigned = fSymptoms
		case u.assigned == fLessons && !u.advice && !strongLessons.any(u.low) && anyWord(pastMarks, u.low):
			// "it was never more than 1%", "it always happened at night":
			// how often, not a lesson
			u.assigned = fNone
		case free && imperativeAdvice(u.low):
			u.assigned, u.advice = fLessons, true
		}
	}
	a.causeBeforeFix()
	a.closingLessons()
	a.storyPlans()
	a.storyShould()
}

// metaSentence reports a sentence about the post itself ("This post
// explains what went wrong…", "In this write-up we describe…").
func metaSentence(low string) bool {
	for _, p := range []string{"this post ", "in this post", "this article ", "in this article", "this write-up ",
		"in this write-up", "this writeup ", "this document ", "in this document", "this report ", "in this report",
		"this blog post ", "in this blog post", "below we ", "below, we ", "here we describe", "this is the story of"} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return false
}

// leadInLists reads a sentence that announces the list after it and names
// a field ("The lessons we are taking away are as follows:", "We took the
// following steps to recover:"): the list's items are that field, as
// under a heading, and the announcement itself is none.
func (a *analysis) leadInLists() {
	units := a.units
	var secOf []int
	for i := 0; i+1 < len(units); i++ {
		u := &units[i]
		if u.bkind != extract.Paragraph || !isLeadIn(u.text) || units[i+1].block == u.block || units[i+1].bkind != extract.ListItem {
			continue
		}
		if secOf == nil {
			secOf = a.sectionOf()
		}
		secKind := a.secKinds[secOf[i]]
		labelled := u.kind != secKind // an earlier "Label:" paragraph heads it
		if !storyKind(u.kind) && !labelled {
			continue
		}
		k := leadInField(u.low)
		if k == fNone {
			continue
		}
		u.assigned = fNone
		j := i + 1
		for ; j < len(units) && units[j].bkind == extract.ListItem; j++ {
			units[j].kind = k
			units[j].assigned = route(&units[j])
		}
		// the announcement ends the earlier label's run, as a label would
		for ; labelled && j < len(units) && secOf[j] == secOf[i] && units[j].kind == u.kind; j++ {
			units[j].kind = secKind
			units[j].assigned = route(&units[j])
		}
		i = j - 1
	}
}

// bareHeadingEN reads English headings that name a field only when they
// stand alone: "Why" (the cause, as in "What happened / Why / What we're
// changing"), "Fault" (Atlassian's template), "Changes" (a pull request's
// fix), "Testing" (how the fix was checked: none of the fields). "What went
// wrong" alone is the story of the incident, a lesson only under a lessons
// heading (as in Google's template), so it names nothing and inherits. ok
// reports a heading read here.
func bareHeadingEN(low string) (k field, ok bool) {
	switch strings.Trim(low, " ?:.!*_#") {
	case "why", "the why":
		return fRootCause, true
	case "fault", "the fault":
		return fRootCause, true
	case "changes", "changes made", "the change", "the changes", "code changes":
		return fRemediation, true
	case "testing", "how to test", "how it was tested", "test plan", "verification", "how to verify", "tests":
		return fSkip, true
	case "what went wrong":
		return fNone, true
	case "investigating":
		return fProblem, true // a status page's updates as headings
	case "identified":
		return fRootCause, true
	case "update", "resolved":
		return fNarrative, true
	}
	return fNone, false
}

// leadIns are the announcements of a list in English, by the field the
// list holds; a heading's words ("Lessons learned:") count too.
var leadIns = []struct {
	kind field
	cs   cueSet
}{
	{fRootCause, cues("what we found", "we found the following", "here is what we found", "here's what we found",
		"what had happened", "the causes", "root causes", "what went wrong was")},
	{fRemediation, cues("steps to recover", "following steps", "to recover", "to fix", "to mitigate", "to restore",
		"what we did", "we did the following", "steps we took")},
	{fActionItems, cues("action items", "follow-up", "follow up", "we will", "going forward", "next steps", "we are going to",
		"to prevent", "we plan to", "we're going to")},
	{fLessons, cues("lessons", "takeaways", "we learned", "we've learned", "what i learned")},
	{fSymptoms, cues("symptoms", "we saw", "users saw", "customers saw", "we observed", "what we saw")},
}

// leadInField is the field a list's announcement names, fNone if none.
func leadInField(low string) field {
	for _, l := range leadIns {
		if l.cs.any(low) {
			return l.kind
		}
	}
	k, weak := headingKind(strings.TrimRight(strings.TrimSpace(low), ":"))
	if weak || carriedLabel(k) == fNone {
		return fNone
	}
	return k
}

// timelineTables reads a table whose header names a time column ("Time
// (UTC) | Event", "When | What happened") as a timeline: its rows are
// time-stamped entries, as under a "Timeline" heading, and the header row
// is no sentence of the story.
func (a *analysis) timelineTables() {
	units := a.units
	for i := range units {
		u := &units[i]
		if u.bkind != extract.Table || i > 0 && units[i-1].bkind == extract.Table {
			continue
		}
		if !storyKind(u.kind) || !timeHeader(u.low) {
			if headerRow(u.text) {
				u.assigned = fNone
			}
			continue
		}
		u.assigned = fNone
		for j := i + 1; j < len(units) && units[j].bkind == extract.Table && units[j].kind == u.kind; j++ {
			units[j].kind = fTimeline
			units[j].assigned = route(&units[j])
		}
		u.kind = fSkip
	}
}

// headerRow reports a table's first row made of short labels ("Action
// item | Type | Owner"): column names, no sentence of the story.
func headerRow(text string) bool {
	cells := strings.Split(strings.Trim(strings.TrimSpace(text), "|"), "|")
	if len(cells) < 2 {
		return false
	}
	for _, c := range cells {
		c = strings.TrimSpace(c)
		if len(strings.Fields(c)) > 3 || strings.ContainsAny(c, ".!?0123456789") {
			return false
		}
	}
	return true
}

// timeHeader reports a table header row whose first column is a time.
func timeHeader(low string) bool {
	cells := strings.Split(low, "|")
	if len(cells) < 2 {
		return false
	}
	first := strings.TrimSpace(cells[0])
	if first == "" && len(cells) > 2 {
		first = strings.TrimSpace(cells[1])
	}
	for _, w := range []string{"time", "date", "when", "timestamp", "utc", "hour"} {
		if first == w || strings.HasPrefix(first, w+" ") || strings.HasPrefix(first, w+"(") {
			return true
		}
	}
	return false
}

// weakSymptom reports a sentence routed to symptoms by one weak failure
// word and no observation ("Every time a query failed, it added a
// listener…"): after a cause stated as found, it explains the cause.
func weakSymptom(u *unit) bool {
	return u.assigned == fSymptoms && u.scores[fSymptoms] < 3 && !strongSymptoms.any(u.low) && !u.advice &&
		!stepShows.any(u.low) && !experienced.any(u.low) && u.scores[fRemediation] == 0 && u.scores[fActionItems] == 0
}

// quotesMessage reports a sentence that quotes a message ("…saw the
// message "Something went wrong"").
func quotesMessage(text string) bool {
	return strings.Count(text, "\"") >= 2 || strings.Contains(text, "“") || strings.Contains(text, "«")
}

// sectionOf returns, per unit, the index of its section in a.doc.Sections.
func (a *analysis) sectionOf() []int {
	out := make([]int, len(a.units))
	si := 0
	secs := a.doc.Sections
	for i := range a.units {
		for si+1 < len(secs) && secs[si+1].Start <= a.units[i].start {
			si++
		}
		out[i] = si
	}
	return out
}

// problemSections reads a "Problem" or "Issue" section of a post laid out
// as problem, cause and fix ("Problem / Root cause / Fix / Testing", a
// bug-fix report or a pull request): its sentences tell what was seen, as
// under a symptoms heading. Alone, the vague heading only leans.
func (a *analysis) problemSections() {
	if !a.headingHit[fRootCause] && !a.headingHit[fRemediation] {
		return
	}
	for i := range a.units {
		u := &a.units[i]
		if u.kind == fRootCause || u.kind == fRemediation {
			return // only a problem told before the cause
		}
		if u.kind == fProblem {
			u.kind = fSymptoms
			u.scores[fSymptoms] -= problemBonus
			u.assigned = route(u)
		}
	}
}

// dualHeadings lets a heading that names two fields ("How we found out and
// fixed it", "Root cause and resolution") give its sentences the second
// field too: the first names the section, the second takes the sentences
// its cues claim at the narrative minimum.
func (a *analysis) dualHeadings() {
	secOf := a.sectionOf()
	second := map[int]field{}
	for si, sec := range a.doc.Sections {
		low := strings.ToLower(sec.Heading)
		i := strings.Index(low, " and ")
		if i < 0 {
			i = strings.Index(low, " & ")
		}
		if i < 0 {
			continue
		}
		k1, _ := headingKind(low[:i])
		k2, _ := headingKind(low[i:])
		if isFieldKind(k1) && isFieldKind(k2) && k1 != k2 {
			second[si] = k2
		}
	}
	if len(second) == 0 {
		return
	}
	for i := range a.units {
		u := &a.units[i]
		k2, ok := second[secOf[i]]
		if !ok || !isFieldKind(u.kind) || u.advice {
			continue
		}
		if u.scores[k2] >= narrativeMin && u.scores[k2] > u.scores[u.kind] {
			u.assigned = k2
		}
	}
}

// leads reports whether f scores at least as high as every other field.
func leads(scores map[field]float64, f field) bool {
	for _, g := range contentFields {
		if g != f && scores[g] > scores[f] {
			return false
		}
	}
	return true
}

// fixOutcome tells that a step worked ("…and the network came back in
// seconds"): the step is the fix.
var fixOutcome = cues("came back", "errors stopped", "stopped failing", "worked again", "working again", "back to normal",
	"recovered", "went away", "disappeared", "was fixed", "were fixed", "fixed it", "solved it", "returned to its usual",
	"returned to normal", "flowing again", "succeeded again", "online again", "back online", "back in service",
	"work again", "works again")

// causeBeforeFix reads a story that never states its cause in words the
// cues know ("The printer had two network ports, and both were connected,
// so it had created a loop."): the paragraph told right before the fix
// (the first step that worked, or the fix section) explains what was
// found, and the steps from the fix on are steps taken.
func (a *analysis) causeBeforeFix() {
	units := a.units
	told := false
	for i := range units {
		switch {
		case units[i].assigned == fRootCause || units[i].kind == fRootCause:
			return
		case units[i].assigned == fSymptoms:
			told = true
		}
	}
	if !told {
		return
	}
	// the fix: a fix section, a step routed as one, or a step whose
	// paragraph tells that it worked
	worked := map[int]bool{}
	for i := range units {
		if fixOutcome.any(units[i].low) {
			worked[units[i].block] = true
		}
	}
	fix := -1
	for i := range units {
		u := &units[i]
		if u.kind == fRemediation || storyKind(u.kind) && (u.assigned == fRemediation ||
			u.assigned == fNone && u.bkind == extract.Paragraph && worked[u.block] && firstPersonStep(u.low)) {
			fix = i
			break
		}
	}
	if fix <= 0 {
		return
	}
	first := fix
	for first > 0 && units[first-1].block == units[fix].block {
		first--
	}
	// the paragraph before it, past a paragraph that only tells how the
	// team found out
	end := first - 1
	for end >= 0 {
		b, det := units[end].block, true
		for j := end; j >= 0 && units[j].block == b; j-- {
			det = det && units[j].assigned == fDetection
		}
		if !det {
			break
		}
		for end >= 0 && units[end].block == b {
			end--
		}
	}
	if end < 0 {
		return
	}
	prev := units[end].block
	for i := end; i >= 0 && units[i].block == prev; i-- {
		u := &units[i]
		rem := u.scores[fRemediation]
		if rem > 0 && pluperfect.MatchString(u.low) {
			sc, _ := sentenceScores(pluperfect.ReplaceAllString(u.low, ""))
			rem = sc[fRemediation]
		}
		if storyKind(u.kind) && u.bkind == extract.Paragraph && (u.assigned == fNone || weakSymptom(u)) && !firstPersonStep(u.low) &&
			!searchStep(u.low) && !u.advice && !isQuestion(u.text) && !isLeadIn(u.text) && rem < 2 && u.scores[fActionItems] == 0 {
			u.assigned = fRootCause
		}
	}
	for i := fix; i < len(units); i++ {
		u := &units[i]
		if storyKind(u.kind) && u.assigned == fNone && !u.advice && u.bkind == extract.Paragraph && u.scores[fActionItems] == 0 &&
			(firstPersonStep(u.low) || u.scores[fRemediation] >= 1 && leads(u.scores, fRemediation) && passiveStep.MatchString(u.low)) {
			u.assigned = fRemediation
		}
	}
}

// searchStep reports a step of the search told by "I" or "we" ("I look at
// what is using the space.", "Then we checked the logs."): not the cause
// found.
func searchStep(low string) bool {
	low = strings.TrimPrefix(strings.TrimPrefix(low, "then "), "so ")
	s, ok := strings.CutPrefix(low, "i ")
	if !ok {
		if s, ok = strings.CutPrefix(low, "we "); !ok {
			return false
		}
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "then "), "first ")
	w, _, _ := strings.Cut(s, " ")
	return searchVerbs[w]
}

// searchVerbs are the verbs of looking for a cause.
var searchVerbs = map[string]bool{
	"look": true, "looked": true, "check": true, "checked": true, "open": true, "opened": true, "search": true,
	"searched": true, "start": true, "started": true, "try": true, "tried": true, "grep": true, "grepped": true,
	"dig": true, "dug": true, "compare": true, "compared": true, "ask": true, "asked": true, "read": true,
	"follow": true, "followed": true, "trace": true, "traced": true, "run": true, "ran": true, "wonder": true, "wondered": true,
}

// imperativeAdvice reports advice told as an imperative ("Always check…",
// "If your Pi drops off the network, check power management first.").
func imperativeAdvice(low string) bool {
	if startsWith(adviceOpener, low) {
		return true
	}
	if !strings.HasPrefix(low, "if you") {
		return false
	}
	if adviceOpener.any(low) {
		return true
	}
	// "If you…, <verb> …": the main clause opens with an imperative
	if i := strings.Index(low, ", "); i > 0 {
		rest := low[i+2:]
		w, _, _ := strings.Cut(rest, " ")
		return planVerbsEN[w] || w == "check" || w == "look" || w == "try" || w == "use" || w == "turn" || w == "read"
	}
	return false
}

// passiveStep matches a step told in the passive ("the router was
// replaced", "the previous version was restored").
var passiveStep = regexp.MustCompile(`\b(?:was|were|has been|have been|had been)\s+(?:\w+ly\s+)?\w+(?:ed|en|wn|lt|ut)\b`)

// pluperfect matches a verb in the past perfect ("had rebooted", "had
// been restarted").
var pluperfect = regexp.MustCompile(`\bhad\s+(?:been\s+)?(?:\w+ly\s+)?\w+`)

// planLead announces the plans told after it in its paragraph.
var planLead = cues("making several changes", "making a number of changes", "making the following changes",
	"taking the following steps", "several changes as a result", "we are making changes")

// boilerplateEN are a status page's set sentences, no field ("This incident
// has been resolved.", "We will provide an update…").
var boilerplateEN = cues("this incident has been resolved", "posted 1 ", "posted 2 ", "posted 3 ", "posted 4 ", "posted 5 ",
	"posted a few ", "posted about ", "posted less than ", "we will provide an update", "we will provide updates",
	"we will post an update", "next update in", "more updates to follow", "we will continue to provide updates")

// noticedIt tells how the incident itself was noticed ("we first noticed it
// when…"): detection, whenever it is told.
var noticedIt = cues("first noticed", "noticed it", "noticed the problem", "noticed the issue", "noticed the outage",
	"noticed something")

// noticedOnly reports a sentence whose only detection cue is "noticed" and
// that names a failure.
func noticedOnly(u *unit) bool {
	if u.scores[fSymptoms] < 1 || !strings.Contains(u.low, "noticed") || noticedIt.any(u.low) {
		return false
	}
	sc, _ := sentenceScores(strings.ReplaceAll(u.low, "noticed", "saw"))
	return sc[fDetection] == 0
}

// presentGeneral are the verbs of a general statement told in the present
// ("Logging can take a service down", "Retries are not free").
var presentGeneral = cues("is", "are", "can", "can't", "cannot", "isn't", "aren't", "does", "doesn't", "don't", "do",
	"may", "might", "tends", "matters", "pays")

// generalStatement reports a sentence told in the present about things in
// general: no past, no plan, no first person, not a question.
func generalStatement(u *unit) bool {
	return anyWord(presentGeneral, u.low) && !anyWord(pastMarks, u.low) && !anyWord(personMarks, u.low) &&
		!anyWord(futureMarks, u.low) && !isQuestion(u.text) && !isLeadIn(u.text) && !u.advice
}

// closingLessons reads the conclusions of an English story: a general
// statement in the present right after a lesson in its paragraph says the
// lesson on ("What I took away is that… Logging can take a service down
// too."), and so does a closing paragraph of general statements once the
// story has told its cause and a fix ("Long-running queries on a replica are
// not harmless: they can stop replication for everyone.").
func (a *analysis) closingLessons() {
	units := a.units
	cause, fix := false, false
	for i := range units {
		u := &units[i]
		if i > 0 && storyKind(u.kind) && u.assigned == fNone && units[i-1].block == u.block &&
			units[i-1].assigned == fLessons && storyKind(units[i-1].kind) && u.scores[fRootCause] < 1 &&
			u.bkind == extract.Paragraph && generalStatement(u) {
			u.assigned = fLessons
		}
		switch u.assigned {
		case fRootCause:
			cause = true
		case fRemediation:
			fix = true
		}
	}
	if !cause || !fix || len(units) == 0 {
		return
	}
	last := units[len(units)-1].block
	first := len(units)
	for first > 0 && units[first-1].block == last {
		first--
	}
	for j := first; j < len(units); j++ {
		u := &units[j]
		if !storyKind(u.kind) || u.assigned != fNone || u.bkind != extract.Paragraph || !generalStatement(u) {
			return
		}
	}
	for j := first; j < len(units); j++ {
		units[j].assigned = fLessons
	}
}

// progressivePlan matches "we are (also, now) <verb>ing …" opening a
// sentence (after a leading clause): once the fix was told, what the
// writers are doing now is a follow-up ("We are moving router configuration
// to a pipeline that checks…").
var progressivePlan = regexp.MustCompile(`^(?:[a-z ,']+, )?(?:we are|we're)\s+(?:also\s+|now\s+)?([a-z]+ing)\b`)

// progressiveNow are the verbs of a status update or of a step still under
// way ("we are monitoring", "we are rolling back"), not a follow-up.
var progressiveNow = map[string]bool{
	"investigating": true, "monitoring": true, "seeing": true, "continuing": true, "looking": true,
	"experiencing": true, "rolling": true, "restarting": true, "reverting": true, "applying": true,
	"restoring": true, "recovering": true, "deploying": true, "processing": true, "running": true,
	"waiting": true, "observing": true, "checking": true, "testing": true, "contacting": true,
	"reaching": true, "communicating": true, "sending": true, "trying": true, "doing": true,
	"going": true, "getting": true, "having": true, "seeking": true, "telling": true, "writing": true,
	"sharing": true, "publishing": true, "following": true, "scaling": true, "failing": true,
	"draining": true, "rebuilding": true, "replaying": true, "reprocessing": true, "sorry": true,
}

// storyPlans reads, in an English story's sections that no field heading
// names, a sentence in the progressive after a fix was told as a plan.
func (a *analysis) storyPlans() {
	fixed := false
	for i := range a.units {
		u := &a.units[i]
		if fixed && storyKind(u.kind) && u.bkind == extract.Paragraph && (u.assigned == fNone || u.assigned == fRemediation) &&
			!u.advice && !isQuestion(u.text) {
			if m := progressivePlan.FindStringSubmatch(u.low); m != nil && !progressiveNow[m[1]] {
				u.assigned = fActionItems
				continue
			}
		}
		if u.assigned == fRemediation {
			fixed = true
		}
	}
}

// failedState tells something that did not work ("did not see the change",
// "could not log in", "failed to load").
var failedState = regexp.MustCompile(`\b(?:did not|didn't|could not|couldn't|were not able|was not able|weren't able|failed to|stopped|cannot|can't|were unable|was unable)\b`)

// userNouns are who meets a failure in a report.
var userNouns = cues("users", "customers", "players", "people", "clients", "visitors", "subscribers", "merchants",
	"some of you", "many of you", "everyone")

// becauseSymptoms reads, before an English story states its cause, a
// failure told with its reason ("Customers did not see their changes,
// because those pages read from the replica"): what was seen, the "because"
// only its cue for the cause.
func (a *analysis) becauseSymptoms() {
	for i := range a.units {
		u := &a.units[i]
		if !storyKind(u.kind) {
			if u.kind == fRootCause || u.kind == fRemediation {
				return
			}
			continue
		}
		if u.assigned == fRootCause && causePivot.any(u.low) {
			return
		}
		if u.assigned != fRootCause || u.kind != fNarrative || u.bkind != extract.Paragraph {
			continue
		}
		main, _, ok := strings.Cut(u.low, " because ")
		if !ok || strings.Contains(main, "because") {
			continue
		}
		sc, _ := sentenceScores(main)
		if sc[fRootCause] >= 2 {
			continue
		}
		if sc[fSymptoms] >= 1 && leads(sc, fSymptoms) || failedState.MatchString(main) && userNouns.any(main) {
			u.assigned = fSymptoms
		}
	}
}

// shouldLesson matches a conclusion the writers draw about themselves ("In
// the future we should deploy hotfixes from the release branch", "We should
// have tested the upgrade on a copy", "The outage could have been avoided
// by …"): a lesson, whatever failure or fix words it names.
var shouldLesson = regexp.MustCompile(`^(?:[a-z ,']+, )?(?:in the future,? |next time,? |in hindsight,? )?(?:we|i) (?:also |really )?(?:should|ought to|could have|would have)\b|\b(?:could|would) have been (?:avoided|prevented|caught)\b`)

// storyShould routes, in an English story's untitled sections, the
// writers' "we should…" conclusions to lessons.
func (a *analysis) storyShould() {
	for i := range a.units {
		u := &a.units[i]
		if !storyKind(u.kind) || u.bkind != extract.Paragraph || isQuestion(u.text) || u.assigned == fLessons ||
			u.assigned == fActionItems {
			continue
		}
		if shouldLesson.MatchString(u.low) {
			if !u.story {
				// the field model is fitted without this route, as without
				// the Russian story order's (unit.fitHand)
				u.story, u.preStory = true, u.assigned
			}
			u.assigned = fLessons
		}
	}
}
