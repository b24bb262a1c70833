package classify

import "strings"

// field is what a section or a sentence serves.
type field int

const (
	fNone field = iota
	fSymptoms
	fRootCause
	fTrigger
	fDetection
	fRemediation
	fActionItems
	fLessons
	fImpact
	// section kinds that hold no one field: their sentences are routed by cues
	fNarrative // summary, overview, background, untitled text
	fAnalysis  // investigation steps: only strong cues count
	fTimeline  // time-stamped entries
	fSkip      // attendees, file lists, test lists, references
	fRecap     // conclusions: lessons, unless a sentence recaps the cause or the fix
	fProblem   // "Problem 2", "问题": a narrative leaning to symptoms
	// not kinds: mark the advice and observation cues in the merged sentence scan
	fAdvice
	fObserve
)

var fieldNames = map[field]string{
	fSymptoms: "symptoms", fRootCause: "root_cause", fTrigger: "trigger", fDetection: "detection",
	fRemediation: "remediation", fActionItems: "action_items", fLessons: "lessons", fImpact: "impact",
}

// contentFields are the fields sentences are routed to, in priority order
// for ties.
var contentFields = []field{fRootCause, fRemediation, fSymptoms, fDetection, fTrigger, fActionItems, fLessons}

// headingRule maps heading phrases (lower case, matched as in cueSet) to a
// section kind. Rules are tried in order and the first kind matched wins, so
// "root cause analysis" is a cause and "问题分析" an analysis before the weak
// "问题" could make it symptoms.
type headingRule struct {
	kind field
	cues cueSet
	weak bool // names a field only vaguely ("problem"): not evidence of a write-up
}

var headingRules = []headingRule{
	// metadata lines ("Time to detection: 8 minutes", "Статус: исправлено")
	{fSkip, cues("time to detect", "time to recover", "time to resol", "time to repair", "time to mitigat", "time to fix", "fix time",
		"время исправления", "время устранения", "время решения", "время починки", "修复时间", "修复耗时", "解决时间", "解决耗时",
		"category", "severity", "status", "date", "type", "tags", "source", "author", "ingested",
		"время обнаружения", "время восстановления", "категория", "статус", "дата", "автор", "теги", "источник",
		"作者", "日期", "标签", "来源", "分类", "状态"), false},
	{fSkip, cues("attendee", "participants", "affected files", "files changed", "changed files", "regression test",
		"references", "appendix", "glossary", "further reading", "see also", "stats", "metadata",
		"участники", "затронутые файлы", "изменённые файлы", "регрессионные тесты", "тесты", "ссылки", "приложение",
		"参与人", "参考", "附录", "相关链接", "参考资料"), false},
	// Public post-incident review templates (Azure's PIR, Google's SRE
	// template, PagerDuty's and Atlassian's) ask their sections as questions;
	// these come before the single words below would read them otherwise:
	// "What went wrong and why?" is the cause (alone, "what went wrong" is a
	// lesson), "How are we making incidents like this less likely or less
	// impactful?" the plans (not impact), and advice to customers no one field.
	{fSkip, cues("how can customers", "customer guidance", "recommendations for customers", "what can customers do",
		"рекомендации клиентам", "рекомендации для клиентов", "что могут сделать клиенты", "客户建议", "给客户的建议", "客户可以"), false},
	{fRootCause, cues("went wrong and why", "why did this happen", "why did it happen", "why this happened",
		"five whys", "5 whys", "что пошло не так и почему", "почему это произошло", "почему так произошло",
		"为什么会发生", "为何发生", "5个为什么", "五个为什么"), false},
	{fActionItems, cues("less likely", "less impactful", "prevent recurrence", "preventing recurrence",
		"prevent this from happening", "prevent it from happening", "what we are doing about", "what we're doing about",
		"going forward", "moving forward", "what we are changing", "what we're changing", "what we are doing next",
		"what we're doing next", "what we will change", "what we'll change", "what we are doing to prevent", "what will we do",
		"what we'll do", "what we're doing to prevent", "how we will prevent", "how we'll prevent", "how we are preventing",
		"не повторил", "не повторял", "чтобы избежать", "что мы сделаем", "что сделаем", "что планируем", "что будет сделано", "будет сделано",
		"что мы изменим", "что изменим", "дальнейшие действия", "следующие шаги", "меры по предотвращению", "что будем делать", "план действий",
		"如何避免", "避免再次", "防止再次", "避免类似", "防止类似", "下一步"), false},
	{fRemediation, cues("how did we respond", "how we responded", "how we respond", "our response", "incident response",
		"response and recovery", "как мы реагировали", "как мы отреагировали", "реагирование", "принятые меры",
		"我们如何应对", "如何应对", "应对措施", "应急处理", "处理措施", "止损"), false},
	{fLessons, cues("where we got lucky", "what went poorly", "what went badly", "what didn't go well", "what did not go well",
		"what could have gone better", "what could have been better", "how'd we do", "how did we do", "в чём нам повезло", "в чем нам повезло"), false},
	// the problem described, however briefly, is what was seen ("Краткое
	// описание проблемы" is no summary)
	{fSymptoms, cues("описание проблемы", "problem description", "description of the problem", "问题描述"), false},
	// "how we went about it" is investigation, whatever else the heading says;
	// so are questions the post goes on to answer ("Followup questions" is
	// no list of follow-ups)
	{fAnalysis, cues("思路", "排查过程", "investigation", "расследование",
		"followup question", "follow-up question", "follow up question", "open question", "remaining question",
		"открытые вопросы", "оставшиеся вопросы", "遗留问题", "疑问"), false},
	{fNarrative, cues("contributing factor", "сопутствующие факторы", "способствующие факторы", "相关因素"), false},
	{fTimeline, cues("timeline", "chronology", "sequence of events", "хронология", "таймлайн", "ход событий",
		"时间线", "时间轴", "时间表"), false},
	{fActionItems, cues("action item", "follow-up", "follow up", "followup", "next step", "corrective", "preventive",
		"preventative", "prevention", "improvement", "future work", "what we will do", "what's next", "long-term", "short-term",
		"что дальше", "планы", "дальнейшие шаги", "меры", "профилактика", "улучшени",
		"改进", "后续", "待办", "预防", "优化措施", "整改"), false},
	{fLessons, cues("lesson", "learned", "learnt", "takeaway", "reflection", "what went well", "moral of",
		"what went wrong", "выводы", "вывод", "уроки", "经验", "教训", "反思", "心得", "感想"), false},
	{fRecap, cues("conclusion", "wrap-up", "wrap up", "final thoughts", "итоги", "итог", "заключение",
		"总结", "小结", "结语", "最后"), false},
	{fTrigger, cues("trigger", "триггер", "触发"), false},
	{fRootCause, cues("root cause", "cause", "why it happened", "what was wrong", "what caused", "what we found", "underlying issue", "underlying problem", "корневая причина",
		"причина", "причины", "почему", "根因", "原因", "根本原因"), false},
	{fDetection, cues("detection", "how we found", "how it was detected", "how did we find", "how was it detected",
		"how did we notice", "how we noticed", "how it was found", "обнаружение", "как заметили", "问题发现", "发现过程"), false},
	// a program's exception or error handling is a topic, not how the
	// incident was handled ("深入探究线程池的异常处理")
	{fAnalysis, cues("exception handling", "error handling", "обработка ошибок", "обработка исключений",
		"обработку ошибок", "обработку исключений", "异常处理", "错误处理", "异常的处理"), false},
	{fRemediation, cues("resolution", "remediation", "mitigation", "fix", "recovery", "workaround", "solution",
		"what changed", "what we did", "steps we took", "steps to recover", "what did we do", "how we recovered", "решение", "исправление", "что сделали", "восстановление", "починка",
		"解决", "修复", "处理过程", "处理", "恢复", "方案"), false},
	{fImpact, cues("impact", "влияние", "последствия", "ущерб", "影响"), false},
	{fAnalysis, cues("analysis", "investigation", "debugging", "troubleshooting", "elimination", "diagnos",
		"packet capture", "reproduc", "source code",
		"анализ", "расследование", "диагностика", "разбор", "отладка",
		"分析", "排查", "复现", "抓包", "排除法", "源码"), false},
	{fNarrative, cues("summary", "overview", "introduction", "background", "context", "tl;dr", "tldr", "what happened",
		"резюме", "кратко", "введение", "контекст", "предыстория", "что произошло", "что случилось",
		"概述", "背景", "简介", "回顾", "情况介绍", "概要", "摘要"), false},
	{fSymptoms, cues("symptom", "description", "описание", "симптом", "现象", "问题描述", "故障描述", "故障现象"), false},
	{fProblem, cues("problem", "issue", "проблема", "问题"), true},
}

// headingKind maps a heading to a section kind, fNone when it names none;
// weak reports a vague match.
func headingKind(h string) (kind field, weak bool) {
	if h == "" {
		return fNone, false
	}
	low := strings.ToLower(h)
	if k, ok := bareHeadingEN(low); ok {
		return k, false
	}
	first := -1
	compiled(allHeadingCues).each(low, func(ci int) bool {
		if first < 0 || allHeadingRule[ci] < first {
			first = allHeadingRule[ci]
		}
		return true
	})
	if first < 0 {
		return fNone, false
	}
	return headingRules[first].kind, headingRules[first].weak
}

// allHeadingCues merges the rules' cues for one scan; allHeadingRule[i] is
// the rule cue i belongs to, and the first rule matched wins.
var allHeadingCues, allHeadingRule = func() (cueSet, []int) {
	var cs cueSet
	var rule []int
	for i, r := range headingRules {
		for _, c := range r.cues {
			cs = append(cs, c)
			rule = append(rule, i)
		}
	}
	return cs, rule
}()
