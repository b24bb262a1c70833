package classify

import (
	"strings"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

// Relevance cues: words that name an incident write-up, and the wider
// vocabulary of failure.
var (
	postmortemCues = cues("postmortem", "post-mortem", "post mortem", "incident", "outage", "root cause",
		"rca", "failure analysis", "troubleshoot", "debugging", "timeline",
		"постмортем", "пост-мортем", "инцидент", "сбой", "авария", "отказ", "разбор", "корневая причина",
		"故障", "事故", "复盘", "排查", "问题分析", "根因", "宕机", "处理记录")
	failureCues = cues("error", "fail", "broke", "down", "crash", "timeout", "bug", "alert",
		"ошибк", "упал", "падени", "не работа", "баг", "алерт", "алёрт", "таймаут", "деградац", "залип",
		"завис", "перегруз", "проблем", "сбо", "недоступ", "тормоз",
		"报错", "失败", "超时", "异常", "无法", "告警", "故障")
)

// relevanceV1 is the gate before the fitted one, kept so `casebook eval
// relevance` can print it beside: it scores "is this an incident write-up" from structure (headings
// naming case fields), cue words in the title and headings, and the routed
// sentences: a cause and a fix make a debugging story.
func (a *analysis) relevanceV1(threshold float64) casebook.Relevance {
	score := 0.0
	fieldHeads := 0
	for _, f := range []field{fSymptoms, fRootCause, fTrigger, fDetection, fRemediation, fActionItems, fImpact, fTimeline} {
		if a.headingHit[f] {
			fieldHeads++
		}
	}
	score += 0.1 * float64(min(fieldHeads, 4))
	var heads strings.Builder
	heads.WriteString(strings.ToLower(a.doc.Title))
	for _, s := range a.doc.Sections {
		heads.WriteByte('\n')
		heads.WriteString(strings.ToLower(s.Heading))
	}
	if postmortemCues.any(heads.String()) {
		score += 0.25
	}
	// density of failure words per 1000 bytes of prose
	rc := relevanceIndex.counts(a.low) // one scan for failure, postmortem and systems words
	words := float64(rc["fail"] + 2*rc["pm"])
	density := words / max(float64(len(a.low))/1000, 1)
	score += min(density/8, 0.25)
	// sentences with a strong cue for a field; detection and symptoms are
	// what tutorials lack: nobody is alerted about a data structure
	has := map[field]int{}
	for _, u := range a.units {
		if u.assigned != fNone && u.scores[u.assigned] >= 2 {
			has[u.assigned]++
		}
	}
	if has[fRootCause] > 0 {
		score += 0.15
	}
	if has[fRemediation] > 0 {
		score += 0.1
	}
	if has[fDetection] > 0 {
		score += 0.15
	}
	if has[fSymptoms] > 0 {
		score += 0.1
	}
	// casebook is about systems: a story with almost no talk of services,
	// databases, networks or deploys (a plane crash, a hospital bill) is not
	// one of its write-ups, whatever its failure words
	tech := rc["tech"]
	for _, n := range a.componentCounts() {
		tech += n
	}
	if float64(tech)/max(float64(len(a.low))/1000, 1) < minTechDensity {
		score -= techPenalty
	}
	score = round2(max(min(score, 1), 0))
	return casebook.Relevance{IsPostmortem: score >= threshold, Score: score}
}

// techCues is the everyday vocabulary of running software, beside the
// component cues.
var techCues = cues("server", "service", "deploy", "release", "library", "code", "api", "cluster", "worker",
	"log", "config", "version", "pipeline", "request", "latency", "cpu", "memory", "disk", "node",
	"file", "directory", "function", "command", "script", "commit", "файл", "директори", "функци", "команд",
	"скрипт", "коммит", "文件", "目录", "函数", "命令", "脚本",
	"сервер", "сервис", "деплой", "релиз", "библиотек", "код", "база", "базу", "базе", "кластер", "воркер",
	"очеред", "лог", "конфиг", "верси", "запрос", "нагрузк", "память", "памяти",
	"服务器", "服务", "部署", "发布", "代码", "数据库", "集群", "日志", "配置", "版本", "接口", "请求", "内存")

var relevanceIndex = mergeLabels(map[string]cueSet{"fail": failureCues, "pm": postmortemCues, "tech": techCues})

// Technical vocabulary (tech and component cues) per 1000 bytes below which a story
// is taken not to be about systems.
const (
	minTechDensity = 2.0
	techPenalty    = 0.25
)

// RelevanceV1 is the score of the hand-tuned gate this one replaced, for
// `casebook eval relevance` to print beside the fitted gate.
func RelevanceV1(doc *extract.Document) float64 {
	return analyse(doc).relevanceV1(DefaultThreshold).Score
}
