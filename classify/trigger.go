package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// triggerEvents are phrases that state a trigger event by themselves, so
// they count wherever they stand ("upgraded to", "was deployed", "升级到").
var triggerEvents = map[string]cueSet{
	"deploy": cues("rolled out", "was deployed", "were deployed", "we deployed", "was released", "were released",
		"was pushed", "were pushed", "pushed a change", "went out",
		"выкатил", "задеплоил", "раскатил",
		"灰度", "发版", "上线了", "发布了", "部署了",
		"a new release", "the new release", "new version of our", "we shipped", "was merged", "were merged",
		"deployed version", "released version", "the release of", "a release of",
		"выложили", "выпустили", "новый релиз", "новой версии приложения", "发了一个", "新版本上线", "发布新版本", "发布了新版本",
		// session 7
		"shipped in", "shipped with", "was shipped", "were shipped", "went live", "a new build", "the new build",
		"pushed the change", "pushed to production", "pushed to prod"),
	"config-change": cues("was changed", "were changed", "was set to", "was renamed", "reduced from", "reduction from",
		"increased from", "lowered from", "raised from", "changed from", "decreased from",
		"изменил", "поменял", "переименовал", "уменьшили с", "увеличили с", "снизили с", "уменьшил с", "увеличил с",
		"снизил с", "был изменён", "был изменен",
		"было изменено", "была изменена",
		"被修改", "被改", "改成", "调整为", "修改了", "调小", "调大",
		"we changed", "an engineer changed", "was updated to", "were updated to", "was toggled", "was enabled", "was disabled",
		"we enabled", "we disabled", "turned on", "turned off", "a config change", "a configuration change",
		"the config change", "the configuration change", "a change to the", "a settings change",
		"включил", "выключил", "отключил", "изменение конфигурации", "изменение настроек", "правка конфига",
		"配置变更", "变更了", "打开了", "关闭了", "开启了", "改了配置",
		// session 7
		"flipped the", "a flag flip", "edited the", "пропатчили конфиг", "поправили конфиг", "поменяли настройк"),
	"upgrade": cues("from version", "to version", "version bump", "bumped", "upgraded to", "upgraded from", "updated to",
		"обновили до", "обновил до", "обновила до", "обновились до", "обновление до", "на новую версию", "с версии", "до версии",
		"升级到", "升级至", "升级为", "更新到", "更新至", "版本从",
		"an upgrade of", "the upgrade of", "version upgrade", "new version of", "latest version", "kernel update",
		"обновление на", "перешли на версию", "переход на версию", "升级了", "版本升级",
		// session 7: a move to a new system is a migration
		"migrated to", "migrated from", "moved to a new", "to a new cluster", "cut over to", "cutover to", "the cutover",
		"перенесли на", "перенесли в", "переехали на", "переезд на", "миграция на", "迁移到", "迁移至", "切换到新"),
	"maintenance": cues("planned maintenance", "scheduled maintenance", "maintenance window",
		"плановые работы", "плановых работ", "плановыми работами", "регламентн", "维护窗口", "割接",
		// operator work, planned or by mistake
		"we scaled", "proactively scaled", "scaled up the", "scaled out the", "accidentally deleted", "deleted by mistake",
		"случайно удалил", "ошибочно удалил", "вручную удалил", "масштабировал",
		"误删", "误操作", "手动删除", "扩容了", "缩容了",
		"during maintenance", "routine maintenance", "maintenance on", "restarted the host", "rebooted the", "ran a script",
		// session 7: operator work told by its act
		"rotated the", "while replacing", "replacing a", "failover test", "failover drill", "dr test", "game day",
		"chaos test", "load test", "restarted the cluster", "restarted the nodes", "drained the",
		"ротацию ключей", "ротация ключей", "при замене", "во время замены", "учения", "нагрузочное тестирование",
		"轮换", "演练", "压测", "更换硬件", "更换了",
		"ran the script", "ran a command", "ran the command", "manually deleted", "manually removed", "cleanup script",
		"was decommissioned", "were decommissioned", "deleted the old", "removed the old",
		"во время работ", "в ходе работ", "перезагрузил", "запустили скрипт", "запустил скрипт", "почистил",
		"维护期间", "运维操作", "人工操作", "手动执行", "重启了", "清理了", "下线了"),
	// a rise in load told as an event
	"traffic-surge": cues("traffic spike", "spike in traffic", "surge in traffic", "traffic surge", "increased throughput",
		"increase in traffic", "increase in load", "sudden increase", "sudden spike", "jumped from", "spiked to", "a peak of",
		"резкий рост", "резко вырос", "резко возросл", "всплеск", "наплыв", "пиковая нагрузка",
		"流量激增", "流量突增", "突增", "激增", "暴涨", "飙升", "猛增",
		// session 7: load a client or a bot brings
		"bulk import", "bulk upload", "bulk export", "large import", "scraping", "scraper", "massive import",
		"массовый импорт", "массовую загрузку", "парсинг", "批量导入", "批量导出"),
	// another party's failure or announcement
	"dependency-event": cues("outage at", "github outage", "aws outage", "gcp outage", "azure outage", "cloudflare outage",
		"provider outage", "upstream outage", "vendor outage", "third-party outage", "was disclosed", "were disclosed",
		"vulnerability was published", "сбой у провайдера", "сбоя у провайдера", "сбое у провайдера",
		"сбой на стороне", "сбоя на стороне", "авария у провайдера", "аварии у провайдера",
		"上游故障", "云厂商故障", "第三方故障", "漏洞被公开", "漏洞披露",
		// session 7: a provider's failure told by what it did
		"provider started", "provider began", "provider was down", "provider went down", "provider returned",
		"vendor started", "vendor was down", "upstream api started", "провайдер начал", "у провайдера случил", "у провайдера произош",
		"服务商出现", "供应商出现", "第三方接口出现"),
}

// scheduleCues tell a schedule: what runs every so often sets off what
// recurs. A schedule is one fact however many of its words a text uses
// ("a daily scheduled run"), so they count once per text for "time", and
// a change the same text tells (an upgrade the nightly job picked up)
// outranks it.
var scheduleCues = cues("cron", "scheduled", "daily run", "nightly", "по расписанию", "定时",
	"daily", "hourly", "weekly", "regularly", "periodic", "every day", "every night", "every hour",
	"every 1", "every 2", "every 3", "every 4", "every 5", "every 6", "every 7", "every 8", "every 9",
	"ежедневн", "ежечасн", "еженедельн", "каждую ночь", "каждый час", "каждые", "периодическ", "регулярн", "крон",
	"定期", "每天", "每晚", "每隔", "每小时", "每周", "周期性", "计划任务",
	// session 7
	"monthly", "yearly", "annual", "ежемесячн", "ежегодн", "每月", "月初", "月底", "每年")

// gatedTriggers are the kinds whose plain words name things as often as
// events: "each deployment's replicas", "deployed infrastructure", "fixed
// by GKE upgrades", "没有更新". In a cause or the article body they count
// only where the words beside them state an event.
var gatedTriggers = map[string]bool{"deploy": true, "upgrade": true, "config-change": true, "maintenance": true}

// Words beside a trigger word that make it an event, matched as whole words
// (so "we" is not "web", "no" not "node"): before it ("after the
// upgrade", "при обновлении", "在升级") or after it ("the deploy caused",
// "升级后", "更新内核导致").
var (
	eventBefore = cues("after", "following", "since", "during", "when", "while", "time of", "caused by",
		"triggered by", "due to", "because of", "recent", "planned", "routine",
		"new", "latest", "unplanned", "botched", "faulty", "bad", "erroneous", "accidental", "failed", "initiated",
		"performed", "performing", "applied", "applying", "executed", "started", "began",
		"после", "при", "во время", "в ходе", "из-за", "вследствие", "когда",
		"недавно", "недавнее", "недавнего", "недавней", "недавний", "плановое", "планового", "плановой", "плановых",
		"очередное", "очередного", "очередной",
		"новый", "новая", "новое", "нового", "новой", "неудачн", "ошибочн", "провели", "проводили", "запустили", "начали",
		"выполнили", "выполняли",
		"在", "由于", "因为", "因", "进行", "做了", "一次", "这次", "本次", "经过", "最近", "新", "执行", "发起")
	// a subject or an auxiliary makes an event only right before the word
	// ("we upgraded", "was deployed"), not a clause away ("had reviewed
	// the deployed infrastructure")
	eventJustBefore = cues("we", "was", "were", "had", "мы", "был", "была", "было", "были")
	eventAfter      = cues("caused", "causes", "triggered", "introduced", "broke", "led to", "resulted", "went",
		"changed", "contained", "included", "added", "removed", "enabled", "disabled", "exposed", "started", "began",
		"внес", "внесл", "добавил", "содержал", "изменил", "включил", "началось", "начались",
		"引入", "带来", "引发", "使得",
		"вызвал", "вызвала", "вызвало", "привел", "привела", "привело", "привёл", "сломал", "сломала", "сломало",
		"спровоцировал", "спровоцировала", "спровоцировало", "повлекло", "повлекла", "прошло", "прошла", "прошёл",
		"прошел",
		"后", "之后", "以后", "完", "了", "导致", "引起", "触发", "造成", "时", "过程", "期间", "失败")
	// a trigger word right after a negation names what did not happen
	eventNegation = cues("not", "no", "never", "without", "didn't", "did not", "не", "без",
		"没有", "没", "未", "不", "无")
)

// Window sizes in units (a Latin or Cyrillic word, or one Han character).
const (
	eventBeforeUnits   = 4
	eventAfterUnits    = 4
	eventNegationUnits = 2
)

var (
	triggerAll      labelledCues // triggerCues, triggerEvents and scheduleCues
	triggerEvent    []bool       // whether cue i of triggerAll is an event phrase
	triggerSchedule []bool       // whether cue i of triggerAll is a schedule word
)

func init() {
	triggerAll, triggerEvent = triggerIndex(triggerCues, triggerEvents)
	triggerSchedule = make([]bool, len(triggerAll.cs))
	for _, c := range scheduleCues {
		triggerAll.cs = append(triggerAll.cs, c)
		triggerAll.labels = append(triggerAll.labels, "time")
		triggerEvent = append(triggerEvent, true) // counts anywhere
		triggerSchedule = append(triggerSchedule, true)
	}
}

// triggerIndex merges the trigger words and the event phrases into one cue
// list, marking which cues are event phrases.
func triggerIndex(words, events map[string]cueSet) (labelledCues, []bool) {
	var all labelledCues
	var isEvent []bool
	for _, t := range []struct {
		table map[string]cueSet
		event bool
	}{{words, false}, {events, true}} {
		for label, cs := range t.table {
			for _, c := range cs {
				all.cs = append(all.cs, c)
				all.labels = append(all.labels, label)
				isEvent = append(isEvent, t.event)
			}
		}
	}
	return all, isEvent
}

// triggerCounts counts trigger kinds named in low, once per word (stems of
// one kind that start at the same place, "upgrade" and "upgraded", count
// once). With gated, a plain word of a gatedTriggers kind counts only where
// its neighbours state an event.
func triggerCounts(low string, gated bool) map[string]int {
	out := map[string]int{}
	type hit struct {
		label string
		at    int
	}
	var seen []hit
	schedule := false
	compiled(triggerAll.cs).eachAt(low, func(ci, at int) bool {
		label := triggerAll.labels[ci]
		for _, h := range seen {
			if h.label == label && h.at == at {
				return true
			}
		}
		if triggerEvent[ci] && !triggerSchedule[ci] && !eventEnds(low, at, triggerAll.cs[ci].text) {
			return true
		}
		if reflexiveAfter(low, at+len(triggerAll.cs[ci].text)) {
			return true // "отключился": it went off by itself, nobody switched it
		}
		if !triggerEvent[ci] && gated && gatedTriggers[label] && !statesEvent(low, at, at+len(triggerAll.cs[ci].text)) {
			return true
		}
		seen = append(seen, hit{label, at})
		if triggerSchedule[ci] {
			schedule = true
			return true
		}
		out[label]++
		return true
	})
	if schedule && out["time"] == 0 {
		out["time"] = 1
	}
	if n := loadRises(low); n > out["traffic-surge"] {
		out["traffic-surge"] = n
	}
	if n := settingChanges(low); n > out["config-change"] {
		out["config-change"] = n
	}
	return out
}

// A rise in load told in the words of a clause rather than as one phrase:
// a noun of load and a verb of rising a few words apart ("traffic to the
// search endpoint rose", "резко вырос входящий трафик", "请求量在五分钟内涨到").
// CPU or memory load is left out: its rise is a symptom, not a trigger.
var (
	loadNouns = cues("traffic", "requests", "request rate", "request volume", "qps", "rps", "visitors", "signups", "sign-ups",
		"трафик", "запросов", "посещаемост", "посетител", "rps",
		"流量", "请求量", "请求数", "访问量", "并发量", "调用量", "qps")
	riseVerbs = cues("rose", "grew", "jumped", "spiked", "surged", "soared", "doubled", "tripled", "quadrupled",
		"increased", "climbed", "went up", "shot up", "exploded",
		"вырос", "выросл", "возрос", "увеличил", "подскочил", "взлетел", "удвоил", "утроил",
		"涨", "增长", "翻倍", "飙升", "暴涨", "激增", "上升", "猛增")
)

// Window sizes of a rise in load: the verb before the noun (Russian puts
// it first) or after it.
const (
	riseBeforeUnits = 3
	riseAfterUnits  = 6
)

// loadRises counts the load nouns of low that a rise verb stands beside,
// within their clause and not right after a negation.
func loadRises(low string) int {
	n := 0
	compiledWith(loadNouns, false).eachAt(low, func(ci, at int) bool {
		end := at + len(loadNouns[ci].text)
		before := unitsBefore(low, at, riseBeforeUnits)
		after := unitsAfter(low, end, riseAfterUnits)
		if risesIn(before) || risesIn(after) {
			n++
		}
		return true
	})
	return n
}

// A setting changed, told as a verb of change and the setting a few words
// after it ("an engineer lowered the connection timeout", "someone edited
// the firewall rules", "поменял таймаут", "调整了限流阈值").
var (
	changeVerbs = cues("lowered", "raised", "reduced", "increased", "decreased", "changed", "edited", "modified",
		"tweaked", "adjusted", "toggled", "flipped", "updated", "set",
		"изменил", "поменял", "уменьшил", "увеличил", "снизил", "поднял", "выставил", "поправил", "правил",
		"修改", "调整", "改了", "调小", "调大", "调低", "调高")
	settingNouns = cues("timeout", "limit", "setting", "settings", "config", "configuration", "flag", "rule", "rules",
		"threshold", "ttl", "parameter", "value", "policy", "variable",
		"таймаут", "лимит", "настройк", "конфиг", "флаг", "правил", "порог", "параметр", "ttl",
		"超时", "配置", "参数", "阈值", "限流", "开关", "规则", "ttl")
)

// determiners open the object of an English change verb ("lowered the
// timeout", "edited our rules").
var determiners = cues("the", "our", "its", "their", "a", "an", "this", "that", "all", "every", "some", "his", "her")

// settingChangeUnits is how far after the verb the setting may stand.
const settingChangeUnits = 5

// settingChanges counts the change verbs of low that a setting follows
// within their clause, not right after a negation.
func settingChanges(low string) int {
	n, last := 0, -1
	compiledWith(changeVerbs, true).eachAt(low, func(ci, at int) bool {
		end := at + len(changeVerbs[ci].text)
		if at < last || anyWord(eventNegation, unitsBefore(low, at, eventNegationUnits)) {
			return true // inside a verb counted ("修改了" is 修改 and 改了)
		}
		last = end
		if isASCIIWord(low[at]) && !anyWord(determiners, unitsAfter(low, end, 1)) {
			return true // "increased past the limit" tells a figure, not a change
		}
		if hasCue(settingNouns, unitsAfter(low, end, settingChangeUnits)) {
			n++
		}
		return true
	})
	return n
}

// hasCue reports whether one of the cues starts a word of low (stems:
// "настройк" in "настройки").
func hasCue(cs cueSet, low string) bool {
	hit := false
	compiled(cs).each(low, func(int) bool { hit = true; return false })
	return hit
}

// risesIn reports a rise verb in w that no negation stands right before.
func risesIn(w string) bool {
	hit := false
	compiled(riseVerbs).eachAt(w, func(_, at int) bool {
		if !anyWord(eventNegation, unitsBefore(w, at, eventNegationUnits)) {
			hit = true
		}
		return !hit
	})
	return hit
}

// eventEnds reports whether the event phrase text found at low[at:] ends
// a word there when it is written in Latin letters: English event phrases
// are whole words ("from version" is not "from versioning", "rolled out"
// not "rolled outward"); Russian ones are stems and end anywhere.
func eventEnds(low string, at int, text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return true
		}
	}
	return endsWord(low, at+len(text), text)
}

// statesEvent reports whether the trigger word at low[start:end] is told
// as something that happened: an event word stands in the clause just
// before or after it, and no negation right before it.
func statesEvent(low string, start, end int) bool {
	if anyWord(eventNegation, unitsBefore(low, start, eventNegationUnits)) {
		return false
	}
	if anyWord(eventBefore, unitsBefore(low, start, eventBeforeUnits)) || anyWord(eventJustBefore, unitsBefore(low, start, 1)) {
		return true
	}
	// skip the rest of the word the stem began ("upgrad|ing")
	for end < len(low) {
		r, n := utf8.DecodeRuneInString(low[end:])
		if han, word := runeClass(r); han || !word {
			break
		}
		end += n
	}
	return anyWord(eventAfter, unitsAfter(low, end, eventAfterUnits))
}

// anyWord reports whether one of the cues occurs in low as a whole word.
func anyWord(cs cueSet, low string) bool {
	hit := false
	compiledWith(cs, true).each(low, func(int) bool { hit = true; return false })
	return hit
}

// clauseStop ends the window of a trigger word's neighbours.
const clauseStop = ".,;:!?()\n，。；：！？（）、"

// unitCounter counts the units (a Han character, or a run of word
// characters) a window has taken.
type unitCounter struct {
	units  int
	inWord bool
}

// take reports whether r still fits a window of n units within its clause.
func (u *unitCounter) take(r rune, n int) bool {
	if strings.ContainsRune(clauseStop, r) {
		return false
	}
	han, word := runeClass(r)
	switch {
	case han:
		u.units++
		u.inWord = false
	case word:
		if !u.inWord {
			u.units++
		}
		u.inWord = true
	default:
		u.inWord = false
	}
	return u.units <= n
}

// unitsBefore returns up to n units of low ending at i, within its clause,
// starting at a word start.
func unitsBefore(low string, i, n int) string {
	j, u := i, unitCounter{}
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(low[:j])
		if !u.take(r, n) {
			break
		}
		j -= size
	}
	return low[j:i]
}

// unitsAfter returns up to n units of low starting at i, within its clause.
func unitsAfter(low string, i, n int) string {
	j, u := i, unitCounter{}
	for j < len(low) {
		r, size := utf8.DecodeRuneInString(low[j:])
		if !u.take(r, n) {
			break
		}
		j += size
	}
	return low[i:j]
}

// bestTrigger picks the trigger kind named most in texts (weights as in
// bestLabelWeighted), ties broken by triggerOrder.
func bestTrigger(texts []triggerText) (string, float64) {
	score := map[string]float64{}
	for _, t := range texts {
		if t.text == "" {
			continue
		}
		for label, n := range triggerCounts(t.text, t.gated) {
			if t.w == 0 {
				score[label] += min(float64(n), 3) * 0.5
			} else {
				score[label] += t.w * float64(n)
			}
		}
	}
	best, bestScore := "", 0.0
	for _, label := range triggerOrder {
		if s := score[label]; s > bestScore {
			best, bestScore = label, s
		}
	}
	return best, bestScore
}

// triggerText is a text to read a trigger kind from: a trigger sentence
// or a title names one outright, a cause or the article body only where
// the words state an event (gated).
type triggerText struct {
	text  string
	w     float64
	gated bool
}

// reflexiveAfter reports a Russian past verb a cue ends in that goes on as
// its reflexive form ("отключил" in "отключился", "отключилась",
// "перезагрузились"): what happened to the system by itself, not what
// someone did to it.
func reflexiveAfter(low string, end int) bool {
	if end < 2 || end > len(low) {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(low[:end])
	if r != 'л' && r != 'а' && r != 'и' && r != 'о' {
		return false
	}
	rest := low[end:]
	for _, v := range []string{"ся", "сь", "ась", "ось", "ись"} {
		if strings.HasPrefix(rest, v) {
			after := rest[len(v):]
			next, _ := utf8.DecodeRuneInString(after)
			return after == "" || !unicode.IsLetter(next)
		}
	}
	return false
}
