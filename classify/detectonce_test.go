package classify

import (
	"strings"
	"testing"

	"github.com/casebook/casebook/extract"
)

// How the team found out is told once, where the story starts; a later
// analysis or conclusion that names the report again refers back to it.
func TestDetectionToldOnce(t *testing.T) {
	tests := []struct {
		name, md    string
		first, back string // prefixes of the first telling and a later reference
	}{
		{"zh", "# 一次日报邮件延迟\n\n周一早上我们收到用户反馈，日报邮件晚到了两个小时。\n\n## 排查过程\n\n" +
			"我们先查了定时任务的日志，任务八点准时启动了。\n\n很明显，任务是准时的，但是用户反馈的是邮件晚到两个小时。\n\n## 原因\n\n最后发现是邮件队列的消费者被一个大附件卡住了。\n",
			"周一早上我们收到用户反馈", "很明显"},
		{"ru", "# Опоздавшие отчёты\n\nВ понедельник бухгалтерия пожаловалась, что утренний отчёт пришёл на два часа позже.\n\n## Расследование\n\n" +
			"Логи планировщика показывали запуск ровно в восемь.\n\nНо бухгалтерия пожаловалась именно на опоздание письма, и это не сходилось.\n\n## Причина\n\nОчередь писем застряла на большом вложении.\n",
			"В понедельник бухгалтерия пожаловалась", "Но бухгалтерия пожаловалась"},
		{"en", "# Late reports\n\nOn Monday the finance team reported that the morning report arrived two hours late.\n\n## Investigation\n\n" +
			"The scheduler logs showed the job starting at eight sharp.\n\nYet the finance team reported a late email, which did not match.\n\n## Root cause\n\nThe mail queue was stuck on a large attachment.\n",
			"On Monday the finance team reported", "Yet the finance team reported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := extract.Extract([]byte(tc.md), extract.Options{Format: extract.FormatMarkdown})
			if err != nil {
				t.Fatal(err)
			}
			a := analyse(doc)
			var first, back *unit
			for i := range a.units {
				switch u := &a.units[i]; {
				case strings.HasPrefix(u.text, tc.first):
					first = u
				case strings.HasPrefix(u.text, tc.back):
					back = u
				}
			}
			if first == nil || back == nil {
				t.Fatalf("units missing: %q", unitTexts(doc))
			}
			if first.assigned != fDetection {
				t.Errorf("%q: %s, want detection", first.text, fieldNames[first.assigned])
			}
			if back.assigned == fDetection {
				t.Errorf("%q: detection, want the reference back left out", back.text)
			}
		})
	}
}
