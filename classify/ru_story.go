package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook/extract"
)

// Russian stories told without field headings (a personal blog's "как я
// чинил", a Habr post's middle, a channel's short note) still follow one
// order: what was seen, the search, the moment the cause is found
// ("оказалось", "выяснилось", "причина в том, что"), what was done about
// it, what is planned, what was learned. ruStory reads that order from the
// story's structure rather than from more phrase lists: the first sentence
// that states the cause (or, when none does, the first step taken) divides
// the story, and on each side a narrative sentence the cues left out goes
// where its grammar puts it:
//   - before it, a state that fails (a negated reflexive verb, ability or
//     verb of working: "не открывался", "не смог", "не приходят") or a
//     failure word is a symptom, unless the writer is only looking ("я
//     посмотрел…"), acting, guessing ("я подумал") or telling a step's
//     outcome;
//   - after it, a step the writers took (first person, past: "я
//     переформатировал", "откатили", "почистил") is remediation, one sentence
//     each, unless its paragraph tests a hypothesis ("проверили на
//     реплике"); a step they promise ("добавим", "я настрою", "надо будет",
//     "договорились") is an action item, and so is what is in place from now
//     on ("Теперь скрипт проверяет…");
//   - the rest of the cause's paragraph goes on explaining the cause.
// Before that order is read, what each Russian sentence tells is read
// wherever it stands (ruHeaded): under a cause or symptom heading, a
// sentence that tells neither an event nor a fault explains how a thing
// works or what still works ("Git хранит содержимое в объектах", "Загрузка
// работает нормально"); a table's header row, a line of metadata or a
// figure under its label states nothing. Neither is the field.
// Also: "ошибок не было" is no symptom, an alert in a plan ("я настрою
// алерт") or a modal ("должен присылать алерт") no detection, and a lead-in
// ("Какие выводы мы сделали?", "Уроки такие:") gives its field to the rest
// of its paragraph or the list after it. Only Russian sentences of narrative
// and problem sections are moved; headed sections keep their headings' say.

// ruStory routes Russian narrative sentences by their place before or
// after the sentence that states the cause.
func (a *analysis) ruStory() {
	pre := make([]field, len(a.units))
	for i := range a.units {
		pre[i] = a.units[i].assigned
	}
	defer func() {
		// the field model is fitted without these routes (unit.fitHand)
		for i := range a.units {
			if u := &a.units[i]; u.assigned != pre[i] {
				u.story, u.preStory = true, pre[i]
			}
		}
	}()
	a.ruHeaded()
	reveal := -1
	for i := range a.units {
		u := &a.units[i]
		if u.assigned == fRootCause && (u.kind == fRootCause || u.scores[fRootCause] >= 3) && cyrillic(u.low) {
			reveal = i
			break
		}
	}
	if reveal < 0 {
		// no cause stated: the first step taken ends what was seen
		for i := range a.units {
			u := &a.units[i]
			if u.assigned == fRemediation && (u.kind == fRemediation || u.scores[fRemediation] >= 2) && cyrillic(u.low) {
				reveal = i
				break
			}
		}
	}
	if reveal < 0 {
		return // no cause and no fix told: no order to read
	}
	for i := range a.units {
		u := &a.units[i]
		if !ruStoryKind(u.kind) || !cyrillic(u.low) {
			continue
		}
		w := a.ruWordsOf(i)
		switch {
		case u.assigned == fSymptoms && ruAbsent(w) && !ruFailing(w):
			u.assigned = fNone // "ошибок не было": nothing failed there
		case u.assigned == fDetection && ruPromises(w, false):
			u.assigned = fActionItems // "я настрою алерт": a plan, not how it was found
		case u.assigned == fDetection && ruModal(w):
			u.assigned = fNone // "мониторинг должен присылать алерт": a lesson, not how it was found
		}
	}
	a.ruLeadIns()
	for i := range a.units {
		u := &a.units[i]
		if i > reveal && (u.assigned == fNone || u.assigned == fDetection) && ruStoryKind(u.kind) &&
			cyrillic(u.low) && ruNow(a.ruWordsOf(i)) {
			u.assigned = fActionItems // "Теперь скрипт проверяет …": what is in place from now on
			continue
		}
		if u.assigned != fNone || !ruStoryKind(u.kind) || isQuestion(u.text) || !cyrillic(u.low) || apology.any(u.low) {
			continue
		}
		w := a.ruWordsOf(i)
		switch {
		case i < reveal:
			sym := u.scores[fSymptoms]
			if u.kind == fProblem {
				sym -= problemBonus
			}
			after := i > 0 && a.units[i-1].assigned == fRemediation // a step's outcome
			// a failing state told by someone only looking ("я посмотрел
			// историю — тестов не прибавилось") is a search step
			failing := ruFailing(w) && !ruSearches(w) || sym > 0
			if failing && (!ruActs(w) || ruUnable(w)) && !ruGuess(w) && !after && !ruAbsent(w) {
				u.assigned = fSymptoms
			}
		case i > reveal:
			switch {
			case ruPromises(w, u.bkind == extract.ListItem):
				u.assigned = fActionItems
			case ruActs(w) && !ruFailing(w) && !a.ruTrial(i):
				u.assigned = fRemediation
			case a.units[reveal].block == u.block && !ruActs(w) && i > 0 && a.units[i-1].assigned == fRootCause:
				u.assigned = fRootCause // the cause's paragraph goes on explaining it
			}
		}
	}
}

// ruAbsent reports a sentence telling that errors were absent ("ошибок не
// было", "никаких ошибок", "без ошибок").
func ruAbsent(w []string) bool {
	for i, x := range w {
		if !strings.HasPrefix(x, "ошиб") {
			continue
		}
		if i > 0 && (w[i-1] == "никаких" || w[i-1] == "без" || w[i-1] == "нет") ||
			i+1 < len(w) && (w[i+1] == "нет" || w[i+1] == "не" && i+2 < len(w) && w[i+2] == "было") {
			return true
		}
	}
	return false
}

// ruModal reports a sentence that says what should be ("должен", "нужно",
// "следует"): advice or a plan, not an event.
func ruModal(w []string) bool {
	for i, x := range w {
		if strings.HasPrefix(x, "должен") || strings.HasPrefix(x, "должн") || x == "нужно" || x == "надо" || x == "следует" || x == "необходимо" {
			return true
		}
		// "стоит добавить" is advice, "алерт стоит на 80%" a setting
		if x == "стоит" && i+1 < len(w) && (strings.HasSuffix(w[i+1], "ть") || strings.HasSuffix(w[i+1], "ться")) {
			return true
		}
	}
	return false
}

// ruNow reports a sentence opening with "теперь" that tells what is in
// place from now on ("Теперь скрипт проверяет код возврата"), not an
// outcome ("теперь всё работает").
func ruNow(w []string) bool {
	if len(w) < 3 || w[0] != "теперь" {
		return false
	}
	for _, x := range w[1:] {
		if x == "все" || x == "всё" || strings.HasPrefix(x, "работа") || strings.HasPrefix(x, "снова") {
			return false
		}
	}
	return true
}

// ruStoryKind reports the section kinds whose sentences tell the story in
// order: untitled text and vaguely headed problem sections.
// ruTrial reports a sentence of a paragraph that tests a hypothesis
// ("Проверили на реплике: подняли нагрузку … Сняли нагрузку — всё
// вернулось"): its steps reproduce the failure, they do not fix it.
func (a *analysis) ruTrial(i int) bool {
	for j := i; j >= 0 && a.units[j].block == a.units[i].block; j-- {
		for _, x := range a.ruWordsOf(j) {
			for _, s := range ruTrialStems {
				if strings.HasPrefix(x, s) {
					return true
				}
			}
		}
	}
	return false
}

// ruTrialStems name checking and reproducing.
var ruTrialStems = []string{"провер", "воспроизв", "эксперимент", "тестир", "замер", "гипотез"}

func ruStoryKind(k field) bool { return k == fNarrative || k == fProblem }

// cyrillic reports text with more Cyrillic letters than Latin ones.
func cyrillic(s string) bool {
	cy, la := 0, 0
	for _, r := range s {
		switch {
		case r >= 0x400 && r <= 0x4FF:
			cy++
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			la++
		}
	}
	return cy > la
}

// ruWordsOf is ruWords of unit i, split once per document: the story
// passes ask for a unit's words again and again (ruTrial reads a
// paragraph's earlier sentences for each of its sentences). The words are
// only read.
func (a *analysis) ruWordsOf(i int) []string {
	if a.ruw == nil {
		a.ruw = make([][]string, len(a.units))
	}
	if a.ruw[i] == nil {
		a.ruw[i] = ruWords(a.units[i].low)
		if a.ruw[i] == nil {
			a.ruw[i] = []string{}
		}
	}
	return a.ruw[i]
}

// ruWords splits lower-cased text into its words (letters and digits, ё
// folded to е, so one ending test serves both spellings).
func ruWords(low string) []string {
	low = strings.ReplaceAll(low, "ё", "е")
	return strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' })
}

// ruCopula are past forms that state, not act: a copula, a modal, a
// beginning.
var ruCopula = map[string]bool{
	"был": true, "была": true, "было": true, "были": true, "стал": true, "стала": true, "стало": true, "стали": true,
	"мог": true, "могла": true, "могло": true, "могли": true, "смог": true, "смогла": true, "смогли": true,
	"хотел": true, "хотела": true, "хотели": true, "начал": true, "начала": true, "начали": true,
	"казалось": true, "показалось": true,
}

// ruThinking are the stems of verbs that see, think or look rather than
// act: "я подумал", "мы заметили", "посмотрел" are the search, not a fix.
var ruThinking = append([]string{"замет", "увид", "вид", "узна", "вспомн", "посмотр",
	"смотр", "глян", "полез", "нашл", "наш", "иска", "пыта", "попыта", "сиде", "жда", "ожида",
	"получал", "спроси", "обрати", "зашел", "зашл", "открыл", "разбира", "копа", "гонял", "изуча", "чита", "провер"}, ruGuessing...)

// ruGuessing are the stems of verbs that guess or decide: "я подумал, что
// это DDoS" is neither a symptom seen nor a step taken.
var ruGuessing = []string{"подума", "дума", "поня", "грешил", "гипотез", "подозрев", "предполож", "догада", "казал"}

// ruGuess reports a sentence told as a guess ("подумали мы", "я грешил на").
func ruGuess(w []string) bool {
	for _, x := range w {
		for _, s := range ruGuessing {
			if strings.HasPrefix(x, s) && x != "оказалось" {
				return true
			}
		}
	}
	return false
}

// ruPast reports a word shaped like a Russian past-tense verb ("удалил",
// "откатили", "перезапустила", "разобрался"), not a copula or a modal.
func ruPast(w string) bool {
	if ruCopula[w] || utf8.RuneCountInString(w) < 4 {
		return false
	}
	w = strings.TrimSuffix(strings.TrimSuffix(w, "ся"), "сь")
	if strings.HasSuffix(w, "тели") || strings.HasSuffix(w, "тель") {
		return false // "пользователи", "показатели": nouns
	}
	if utf8.RuneCountInString(w) >= 6 {
		// "перенёс", "привезли": pasts without -л- in the masculine
		for _, end := range []string{"нес", "несла", "несли", "вез", "везла", "везли"} {
			if strings.HasSuffix(w, end) {
				return true
			}
		}
	}
	for _, end := range []string{"ил", "ила", "или", "ал", "ала", "али", "ял", "яла", "яли", "ел", "ела", "ели",
		"ул", "ула", "ули", "ыл", "ыла", "ыли", "ол", "ола", "оли"} {
		if strings.HasSuffix(w, end) {
			return true
		}
	}
	return false
}

// ruNouns are common words shaped like past verbs ("сигнал", "файл" are
// not, "канал", "модели" are).
var ruNouns = map[string]bool{
	"сигнал": true, "канал": true, "журнал": true, "материал": true, "терминал": true, "интервал": true,
	"портал": true, "потенциал": true, "финал": true, "модели": true, "роли": true, "цели": true, "панели": true,
	"консоли": true, "пул": true, "пула": true, "пули": true, "стол": true, "протокол": true, "символ": true,
	"уровел": true, "зал": true, "вокзал": true, "персонал": true, "капитал": true, "оригинал": true,
	"максимал": true, "минимал": true, "ели": true, "дели": true, "мели": true, "недели": true, "метели": true,
	"мысли": true, "сопли": true,
}

// ruActs reports a step the writers took: "я"/"мы" with a past verb, or a
// past verb leading the sentence (after "затем", "потом", "сначала"…), as
// Russian tells its steps without the pronoun ("Почистил образы",
// "Откатили релиз").
func ruActs(w []string) bool {
	for i, x := range w {
		if x != "я" && x != "мы" {
			continue
		}
		// the pronoun's own verb, a few words on ("мы быстро откатили")
		for j := i + 1; j < len(w) && j <= i+3; j++ {
			if ruStep(w, j) {
				return true
			}
			if !ruLeadAdverb[w[j]] && !ruPast(w[j]) {
				break
			}
		}
	}
	for j, x := range w {
		if ruLeadAdverb[x] {
			continue
		}
		return ruStep(w, j) // a verb leading the sentence: "Почистил образы"
	}
	return false
}

// ruSearches reports a search step: "я"/"мы" with a verb of looking or
// checking, or one leading the sentence ("Посмотрел логи").
func ruSearches(w []string) bool {
	for i, x := range w {
		if (x == "я" || x == "мы") && i+1 < len(w) && ruThought(w[i+1]) && !ruGuess(w[i+1:i+2]) {
			return true
		}
	}
	for _, x := range w {
		if ruLeadAdverb[x] {
			continue
		}
		return ruPast(x) && ruThought(x) && !ruGuess([]string{x})
	}
	return false
}

// ruStep reports w[j] as a past verb of doing: not a noun of that shape,
// not seeing or thinking, not negated.
func ruStep(w []string, j int) bool {
	x := w[j]
	return ruPast(x) && !ruNouns[x] && !ruThought(x) && (j == 0 || w[j-1] != "не")
}

// ruLeadAdverb are the words a step may open with before its verb.
var ruLeadAdverb = map[string]bool{
	"затем": true, "потом": true, "сначала": true, "сперва": true, "еще": true, "также": true, "тогда": true,
	"после": true, "этого": true, "чего": true, "вручную": true, "быстро": true, "срочно": true, "сразу": true,
	"первым": true, "делом": true, "в": true, "итоге": true, "и": true, "а": true, "я": true, "мы": true,
	"просто": true, "заново": true, "наконец": true, "дальше": true, "далее": true, "ночью": true, "утром": true,
}

func ruThought(w string) bool {
	for _, s := range ruThinking {
		if strings.HasPrefix(w, s) || strings.HasPrefix(strings.TrimPrefix(w, "по"), s) {
			return true
		}
	}
	return false
}

// ruUnable reports a failure to do something: "не смог", "не удалось".
func ruUnable(w []string) bool {
	for i := 1; i < len(w); i++ {
		if w[i-1] != "не" {
			continue
		}
		switch w[i] {
		case "смог", "смогла", "смогли", "мог", "могли", "могла", "удалось", "удается", "получилось", "получается", "получалось":
			return true
		}
	}
	return false
}

// ruFailing reports how Russian tells a thing that fails: a negated
// reflexive verb ("не открывался", "не пушится", "не подключается"), a
// negated ability ("не может", "не смог", "не удалось"), or a negated verb
// of working, answering or arriving ("не работает", "не отвечал", "не
// приходят"). A negated transitive verb ("не закрывает соединения", "не
// проверял код") is a fault, not a symptom, and "не было", "не помогло" no
// failure of the system.
func ruFailing(w []string) bool {
	for i := 1; i < len(w); i++ {
		if w[i-1] != "не" {
			continue
		}
		x := w[i]
		if ruThought(x) || strings.HasPrefix(x, "помог") {
			continue
		}
		reflexive := strings.HasSuffix(x, "ся") || strings.HasSuffix(x, "сь")
		if reflexive && (ruPast(x) || ruPresent(x) || strings.HasSuffix(x, "лось")) {
			return true
		}
		if strings.HasPrefix(x, "мож") || strings.HasPrefix(x, "мог") || strings.HasPrefix(x, "смог") ||
			x == "удалось" || x == "удается" || x == "получилось" || x == "получается" || x == "получалось" {
			return true
		}
		for _, v := range ruIntransitive {
			if strings.HasPrefix(x, v) && (ruPast(x) || ruPresent(x) || strings.HasSuffix(x, "ло")) {
				return true
			}
		}
	}
	for _, x := range w {
		if strings.HasPrefix(x, "перестал") || strings.HasPrefix(x, "перестает") || strings.HasPrefix(x, "перестают") {
			return true // "перестал отвечать": stopped working
		}
	}
	return false
}

// ruIntransitive are the stems of the verbs a system fails in when
// negated: working, answering, arriving, passing, loading, starting.
var ruIntransitive = []string{"работа", "отвеча", "приход", "пришл", "доход", "дошл", "проход", "прошл",
	"груз", "загруж", "подгруж", "запуска", "подключа", "стартова", "стартуе", "реагирова", "реагируе", "отклика",
	"показыва", "отобража", "открыва", "доставля"}

// ruPresent reports a word shaped like a present-tense verb of the third
// person ("открывается", "приходят", "грузит").
func ruPresent(w string) bool {
	if utf8.RuneCountInString(w) < 4 {
		return false
	}
	w = strings.TrimSuffix(strings.TrimSuffix(w, "ся"), "сь")
	for _, end := range []string{"ет", "ит", "ют", "ят", "ут", "ат"} {
		if strings.HasSuffix(w, end) {
			return true
		}
	}
	return false
}

// ruPromises reports a step the writers promise: "мы"/"я" with a future
// form ("мы добавим", "я настрою"), or one leading the sentence ("Добавим
// алерт", "Настрою ротацию"), or "надо будет", "в планах".
func ruPromises(w []string, item bool) bool {
	for i, x := range w {
		if strings.HasPrefix(x, "договорил") {
			return true // "мы договорились проверять …": an agreement for the future
		}
		if (x == "надо" || x == "нужно" || x == "необходимо") && i+1 < len(w) && w[i+1] == "будет" {
			return true
		}
		if x == "планах" && i > 0 && w[i-1] == "в" {
			return true
		}
		if x != "я" && x != "мы" {
			continue
		}
		j := i + 1
		for j < len(w) && ruPromiseFiller[w[j]] {
			j++
		}
		if j < len(w) && ruFuture(w[j], x == "я") {
			return true
		}
	}
	if item {
		// a follow-up list's item: "Добавим алерт на …"
		for _, x := range w {
			if ruLeadAdverb[x] {
				continue
			}
			return ruFuture(x, false)
		}
	}
	return false
}

// ruPromiseFiller are the words between a pronoun and its verb ("мы ещё
// добавим", "я обязательно настрою").
var ruPromiseFiller = map[string]bool{"еще": true, "также": true, "тоже": true, "обязательно": true, "теперь": true,
	"сразу": true, "обязательно-": true, "точно": true, "скоро": true, "потом": true, "отдельно": true}

// ruFuture reports a perfective future form of the first person: plural
// "добавим", "сделаем", "введем"; singular (sing) "добавлю", "настрою".
func ruFuture(w string, sing bool) bool {
	if utf8.RuneCountInString(w) < 5 || ruThought(w) || ruNotVerbs[w] {
		return false
	}
	if sing {
		return strings.HasSuffix(w, "ю") || strings.HasSuffix(w, "у")
	}
	if !ruPerfectivePrefix(w) {
		return false
	}
	return strings.HasSuffix(w, "им") || strings.HasSuffix(w, "ем")
}

// ruNotVerbs are words shaped like a first-person future that are not.
var ruNotVerbs = map[string]bool{"причем": true, "затем": true, "зачем": true, "совсем": true, "потому": true,
	"самому": true, "никому": true, "нашем": true, "вашем": true, "своем": true, "каждому": true, "такому": true}

// ruPerfectivePrefix reports a verb with a perfective prefix ("добавим",
// "настроим", "перейдем"), so that "мы видим", "используем" (present, not
// a plan) do not count.
func ruPerfectivePrefix(w string) bool {
	for _, p := range []string{"до", "на", "пере", "с", "за", "вы", "вв", "вн", "раз", "рас", "от", "об", "под", "при", "про", "у", "по"} {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// ruLeadIns lets a Russian narrative sentence that announces what follows
// ("Какие выводы мы сделали?", "Уроки получились такие:", "Что сделали
// дальше:") give its field to the rest of its paragraph, or to the list
// right after it when it ends the paragraph: the sentences it announces
// name the field no more.
func (a *analysis) ruLeadIns() {
	for i := 0; i < len(a.units); i++ {
		u := &a.units[i]
		if !ruStoryKind(u.kind) || !cyrillic(u.low) || !(isLeadIn(u.text) || isQuestion(u.text)) {
			continue
		}
		f := topField(u.scores)
		if f == fNone || f == fTrigger || u.scores[f] < 2 {
			continue
		}
		last := i+1 == len(a.units) || a.units[i+1].block != u.block
		j := i + 1
		for ; j < len(a.units); j++ {
			v := &a.units[j]
			same := v.block == u.block
			list := last && v.bkind == extract.ListItem && (v.block == a.units[j-1].block || v.block == a.units[j-1].block+1)
			if !same && !list || v.kind != u.kind || isLeadIn(v.text) || isQuestion(v.text) {
				break
			}
			if v.assigned == fNone {
				v.assigned = f
			}
		}
		i = j - 1
	}
}

// ruHeaded takes out of their fields the Russian sentences that state
// nothing of the incident, wherever they stand:
//   - under a cause or symptom heading, a sentence that tells neither an
//     event (a past verb, "я"/"мы") nor a fault (a negation, a fault word):
//     it explains how a thing works ("Git хранит содержимое в объектах.
//     Это же компрессия") or that a part still works ("Redis работает
//     корректно", "Загрузка работает нормально"), it is not what broke or
//     why;
//   - a line of labels and values: a table's header row ("Метрика | До
//     исправления | После исправления"), a line of metadata ("Создано:
//     2025-10-01 Автор: … Версия: 1.0"), a figure under its label with no
//     verb ("Количество рестартов: 66 попыток").
func (a *analysis) ruHeaded() {
	for i := range a.units {
		u := &a.units[i]
		if u.assigned == fNone || !cyrillic(u.low) {
			continue
		}
		w := a.ruWordsOf(i)
		switch {
		case (u.kind == fRootCause || u.kind == fSymptoms) && u.assigned == u.kind && ruExplains(w):
			u.assigned = fNone // "Git хранит содержимое в объектах.": how it works, not what went wrong
		case a.ruLabels(i, w):
			u.assigned = fNone // "Метрика | До | После", "Автор: … Версия: 1.0": labels, no statement
		}
	}
}

// ruExplains reports a sentence that tells neither an event (a past verb,
// "я"/"мы") nor a fault (a negation, a word of fault).
func ruExplains(w []string) bool {
	for _, x := range w {
		if x == "я" || x == "мы" || ruCopula[x] || ruPast(x) && !ruNouns[x] {
			return false
		}
		// a negation or a negative adjective: "не содержит", "невозможно", "некорректный"
		if x == "не" || x == "нет" || x == "ни" || strings.HasPrefix(x, "не") && utf8.RuneCountInString(x) >= 5 {
			return false
		}
		for _, s := range ruFaultStems {
			if strings.HasPrefix(x, s) {
				return false
			}
		}
	}
	return true
}

// ruFaultStems name a fault: a bug, an error, a failure, a breakage, a loss,
// a refusal, an overload.
var ruFaultStems = []string{"баг", "ошиб", "проблем", "сбо", "отказ", "утечк", "слом", "лома", "побит", "бит",
	"повред", "испорч", "конфликт", "гонк", "уязвим", "виноват", "причин", "из-за", "провал", "пада", "упал", "упад",
	"завис", "виснет", "ложн", "потер", "теря", "тормоз", "медлен", "таймаут", "отклон", "отверг", "отбрас", "блокир",
	"обрыв", "оборв", "спотык", "переполн", "перегру", "исчерп", "превыш",
	"bug", "error", "fail", "exception", "timeout", "crash", "panic", "reject", "refus", "denied", "drop"}

// ruLabels reports a line of labels and values that states nothing: a
// table's header row, a line of metadata (two labels or more, nothing but
// the labels' own words of a verb: "Создано: 2025-10-01 Автор: … Версия:
// 1.0") or a figure under its label with no verb ("Количество рестартов
// бота: 66 попыток").
func (a *analysis) ruLabels(i int, w []string) bool {
	u := &a.units[i]
	if u.bkind == extract.Table {
		// the first row of its table, with no verb (a table without a header
		// row opens with a data row: "10:12 | Пользователи не могут войти")
		first := i == 0 || a.units[i-1].bkind != extract.Table || a.units[i-1].block+1 < u.block
		return first && ruVerbless(w)
	}
	n := strings.Count(u.text, ": ")
	if n >= 2 && !strings.HasSuffix(strings.TrimSpace(u.text), ":") {
		labels := map[string]bool{}
		for _, part := range strings.Split(u.text, ": ")[:n] {
			if f := ruWords(strings.ToLower(part)); len(f) > 0 {
				if k, _ := headingKind(f[len(f)-1]); k != fNone && k != fSkip {
					return false // "Причина: … Решение: …" labels fields, not metadata
				}
				labels[f[len(f)-1]] = true
			}
		}
		var rest []string
		for _, x := range w {
			if !labels[x] {
				rest = append(rest, x)
			}
		}
		if len(labels) >= 2 && ruVerbless(rest) {
			return true
		}
	}
	label, value, ok := strings.Cut(u.text, ": ")
	if !ok || utf8.RuneCountInString(label) > 60 || strings.ContainsAny(label, ",.") {
		return false
	}
	value = strings.TrimLeft(value, "~≈<> ")
	if r, _ := utf8.DecodeRuneInString(value); r < '0' || r > '9' {
		return false
	}
	return ruVerbless(w)
}

// ruVerbless reports words with no verb of an event or a step: no past, no
// "я"/"мы", no infinitive, no participle of a step done, no present of the
// third person.
func ruVerbless(w []string) bool {
	for _, x := range w {
		if x == "я" || x == "мы" || ruCopula[x] || ruPast(x) && !ruNouns[x] || ruInfinitive(x) || ruDone(x) || ruPresent(x) {
			return false
		}
	}
	return true
}

// ruDone reports a short passive participle of a step done ("добавлен",
// "восстановлена", "исправлено", "отключены").
func ruDone(w string) bool {
	if utf8.RuneCountInString(w) < 6 {
		return false
	}
	for _, end := range []string{"ен", "ена", "ено", "ены", "ан", "ана", "ано", "аны", "ят", "ята", "ято", "яты"} {
		if strings.HasSuffix(w, end) {
			return true
		}
	}
	return false
}
