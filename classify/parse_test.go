package classify

import (
	"slices"
	"testing"
	"unicode/utf8"
)

func TestParseDuration(t *testing.T) {
	cases := []struct{ in, want string }{
		{"8 minutes", "PT8M"},
		{"1h30m", "PT1H30M"},
		{"1 hour and 48 minutes", "PT1H48M"},
		{"54 hours 10 minutes", "PT54H10M"},
		{"an hour and a half", "PT1H30M"},
		{"371 minutes", "PT6H11M"},
		{"2 days", "PT48H"},
		{"30 минут", "PT30M"},
		{"полтора часа", "PT1H30M"},
		{"полчаса", "PT30M"},
		{"два часа 15 минут", "PT2H15M"},
		{"10 分钟", "PT10M"},
		{"两个小时", "PT2H"},
		{"一个半小时", "PT1H30M"},
		{"半小时", "PT30M"},
		{"二十五分钟", "PT25M"},
		{"1小时30分钟", "PT1H30M"},
		{"45s", "PT45S"},
	}
	for _, tc := range cases {
		got, _, ok := ParseDuration(tc.in)
		if !ok || got != tc.want {
			t.Errorf("ParseDuration(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
	// a figure past a hundred years is no incident's (it had overflowed)
	for _, bad := range []string{"", "most of the day", "minutes", "version 3", "много", "10000000000000000000S", "99999 weeks"} {
		if got, _, ok := ParseDuration(bad); ok {
			t.Errorf("ParseDuration(%q) = %q, want none", bad, got)
		}
	}
}

func TestLabelledDuration(t *testing.T) {
	cases := []struct {
		text, field, want string
	}{
		{"Time to detection: 8 minutes", "time_to_detect", "PT8M"},
		{"Time to recovery: 54 hours 10 minutes", "time_to_resolve", "PT54H10M"},
		{"the outage lasting 1 hour and 48 minutes, from 16:58", "duration", "PT1H48M"},
		{"Время восстановления — полтора часа.", "time_to_resolve", "PT1H30M"},
		{"故障持续了两个小时。", "duration", "PT2H"},
		{"Time to detection: ?", "time_to_detect", ""},
	}
	for _, tc := range cases {
		var got string
		for _, dl := range durationLabels {
			if dl.field == tc.field {
				got, _, _ = labelledDuration(tc.text, toLower(tc.text), dl.labels)
			}
		}
		if got != tc.want {
			t.Errorf("%q: %s = %q, want %q", tc.text, tc.field, got, tc.want)
		}
	}
}

func TestSplitSentences(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"The pool was full. We rolled back at 10:05, i.e. before lunch. Done!",
			[]string{"The pool was full.", "We rolled back at 10:05, i.e. before lunch.", "Done!"}},
		{"We upgraded to 3.45 on June 15. See os.Getenv for details.",
			[]string{"We upgraded to 3.45 on June 15.", "See os.Getenv for details."}},
		{"On Monday 3. February 2020 we upgraded. It broke.",
			[]string{"On Monday 3. February 2020 we upgraded.", "It broke."}},
		{"Ждала вторника.Стою на развилке.", []string{"Ждала вторника.", "Стою на развилке."}},
		{"Оказалось, что т. е. пул был мал. Мы его увеличили.",
			[]string{"Оказалось, что т. е. пул был мал.", "Мы его увеличили."}},
		{"收到告警。原因是连接池耗尽！已经修复？是的",
			[]string{"收到告警。", "原因是连接池耗尽！", "已经修复？", "是的"}},
		{"内存排序，队列等等 并发现写入比较高", []string{"内存排序，队列等等", "并发现写入比较高"}},
		{"日志显示 \"connection refused\"。然后重启。", []string{"日志显示 \"connection refused\"。", "然后重启。"}},
		// a step number heads its sentence
		{"1.1. Open the dashboard. Run the query.", []string{"1.1. Open the dashboard.", "Run the query."}},
		{"2. Перезапустить сервис. Проверить логи.", []string{"2. Перезапустить сервис.", "Проверить логи."}},
		{"3.2.1. 重启服务。", []string{"3.2.1. 重启服务。"}},
		{"We ran 2.1. Then 2.2 broke.", []string{"We ran 2.1.", "Then 2.2 broke."}},
	}
	for _, tc := range cases {
		var got []string
		for _, sp := range splitSentences(tc.in) {
			got = append(got, tc.in[sp.start:sp.end])
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("splitSentences(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestHeadingKind(t *testing.T) {
	cases := []struct {
		h    string
		want field
	}{
		{"Root Cause Analysis", fRootCause},
		{"Issue Summary", fNarrative},
		{"Timeline (all times UTC)", fTimeline},
		{"Lessons Learned", fLessons},
		{"Action Items", fActionItems},
		{"Corrective and Preventative Measures", fActionItems},
		{"Resolution and recovery", fRemediation},
		{"Корневая причина", fRootCause},
		{"Исправление", fRemediation},
		{"Что сделали", fRemediation},
		{"Выводы", fLessons},
		{"Симптомы", fSymptoms},
		{"Влияние", fImpact},
		{"现象", fSymptoms},
		{"问题描述", fSymptoms},
		{"原因分析", fRootCause},
		{"问题分析", fAnalysis},
		{"解决方案", fRemediation},
		{"处理过程", fRemediation},
		{"改进措施", fActionItems},
		{"经验教训", fLessons},
		{"影响", fImpact},
		{"Attendees", fSkip},
		{"How a skip list is built", fNone},
		// post-incident review templates ask their sections as questions
		{"What went wrong and why?", fRootCause},
		{"What went wrong", fNone}, // alone the incident's story; a lesson under a lessons heading (TestStoryLayoutsEN)
		{"How did we respond?", fRemediation},
		{"How are we making incidents like this less likely or less impactful?", fActionItems},
		{"How can customers make incidents like this less impactful?", fSkip},
		{"Where we got lucky", fLessons},
		{"Что пошло не так и почему", fRootCause},
		{"Как мы реагировали", fRemediation},
		{"Что мы сделаем, чтобы это не повторилось", fActionItems},
		{"Рекомендации клиентам", fSkip},
		{"为什么会发生", fRootCause},
		{"我们如何应对", fRemediation},
		{"如何避免再次发生", fActionItems},
		{"给客户的建议", fSkip},
	}
	for _, tc := range cases {
		if got, _ := headingKind(tc.h); got != tc.want {
			t.Errorf("headingKind(%q) = %d, want %d", tc.h, got, tc.want)
		}
	}
}

func TestTimestampPrefix(t *testing.T) {
	cases := []struct{ in, rest string }{
		{"2021-07-02 07:39 A user reported errors", "A user reported errors"},
		{"04:53 PM UTC Operations engineers revert", "Operations engineers revert"},
		{"17:25 UTC - Incident declared", "Incident declared"},
		{"No stamp here", "No stamp here"},
	}
	for _, tc := range cases {
		if got := tc.in[timestampPrefix(tc.in):]; got != tc.rest {
			t.Errorf("after timestampPrefix(%q) = %q, want %q", tc.in, got, tc.rest)
		}
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"8 minutes", "1h30m", "полтора часа", "两个小时", "一个半小时", "半", "пол", "1,5 h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		iso, n, ok := ParseDuration(s)
		if n < 0 || n > len(s) {
			t.Fatalf("ParseDuration(%q) read %d bytes", s, n)
		}
		if ok && (len(iso) < 3 || iso[:2] != "PT") {
			t.Fatalf("ParseDuration(%q) = %q", s, iso)
		}
	})
}

func FuzzSplitSentences(f *testing.F) {
	for _, s := range []string{"A. B.", "т. е. x", "收到。好", "3.45. Next", "...", "!?。"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		last := 0
		for _, sp := range splitSentences(s) {
			if sp.start < last || sp.end > len(s) || sp.start >= sp.end {
				t.Fatalf("splitSentences(%q): bad span %+v after %d", s, sp, last)
			}
			last = sp.end
		}
	})
}

func TestFindDate(t *testing.T) {
	cases := []struct {
		in    string
		short bool
		want  string
	}{
		{"2021-07-02 07:32 Daily pipeline run starts", false, "2021-07-02"},
		{"On Monday 3. February 2020, a planned upgrade", false, "2020-02-03"},
		{"On September 29, 2025, the service", false, "2025-09-29"},
		{"在 2020/01/13 23:18(UTC+8), 收到报警", false, "2020-01-13"},
		{"2020年7月13日一大早收到告警", false, "2020-07-13"},
		{"утром 26 мая 2021 пришёл алерт", false, "2021-05-26"},
		{"Website Outage 5-26-21", true, "2021-05-26"},
		{"Website Outage 5-26-21", false, ""},
		{"version 2021-13-45 is not a date", false, ""},
	}
	for _, tc := range cases {
		got, _ := findDate(tc.in, tc.short)
		if got != tc.want {
			t.Errorf("findDate(%q, %v) = %q, want %q", tc.in, tc.short, got, tc.want)
		}
	}
}

func TestSourceFiles(t *testing.T) {
	got := sourceFiles("в src/cli/init-files.ts и main.go, но не example.com, v1.2 или file.tsx.")
	want := []string{"typescript", "go", "typescript"}
	if !slices.Equal(got, want) {
		t.Errorf("sourceFiles = %q, want %q", got, want)
	}
}
