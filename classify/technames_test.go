package classify

import (
	"regexp"
	"slices"
	"testing"
)

func TestTechCandidate(t *testing.T) {
	tests := []struct {
		w    string
		want bool
	}{
		{"GitHub", true}, {"SearXNG", true}, {"iCloud", true}, {"OpenWebUI", true},
		{"widgets.io", true}, {"parser.py", true}, {"quilldb", true}, {"queuectl", true}, {"event-mq", true},
		{"initFiles", false},                                     // a lowerCamel identifier
		{"RouterSecurityManager", false},                         // a class name
		{"python3", false}, {"node2", false}, {"docker0", false}, // versions, hosts, interfaces
		{"API", false}, {"UTC", false}, {"Merge", false}, {"server", false}, {"notes.txt", false},
	}
	for _, tt := range tests {
		if got := techCandidate(tt.w); got != tt.want {
			t.Errorf("techCandidate(%q) = %v, want %v", tt.w, got, tt.want)
		}
	}
}

// A technology the table lacks is offered as a tag suggestion (never put
// in tags: vocabulary.md) when the title or the cause names it and the
// body names it again, in each language; named only in passing it is not.
func TestUnknownTechnologyTags(t *testing.T) {
	cases := []struct {
		name, md, want string
		in             bool
	}{
		{"en", "# Postmortem: QuillDB lost its leader\n\n## Impact\n\nWrites failed for an hour.\n\n## Root cause\n\nThe root cause was a bug in QuillDB's election code: two QuillDB nodes both took the lead.\n\n## Resolution\n\n- We restarted one node.\n", "quilldb", true},
		{"ru", "# Разбор: упал FlowGate\n\n## Что случилось\n\nЗапросы не проходили полчаса.\n\n## Причина\n\nПричиной стала ошибка в FlowGate: после перезапуска FlowGate не читал свой конфиг.\n\n## Решение\n\n- Откатили версию.\n", "flowgate", true},
		{"zh", "# 故障复盘：widgets.io 同步中断\n\n## 问题描述\n\n向 widgets.io 的同步任务失败了两个小时。\n\n## 根本原因\n\n根本原因是 widgets.io 的接口返回了错误的状态码，任务误以为上传成功。\n\n## 解决方案\n\n- 修复状态码判断。\n", "widgets-io", true},
		{"en in passing", "# Postmortem: the API lost its leader\n\n## Root cause\n\nThe root cause was a bug in the election code.\n\n## Resolution\n\n- We restarted one node; a colleague asked about LogTrove, and LogTrove came up again at lunch.\n", "logtrove", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := classifyMarkdown(t, tc.md)
			sugg := c.Extraction.Suggestions["tags"]
			if slices.Contains(sugg, tc.want) != tc.in {
				t.Errorf("suggested tags %v: %q in = %v, want %v", sugg, tc.want, !tc.in, tc.in)
			}
			if slices.Contains(c.Tags, tc.want) {
				t.Errorf("tags %v hold %q, which the table lacks", c.Tags, tc.want)
			}
		})
	}
}

// The general vocabulary maps names in every script to one slug, and
// names every post mentions in passing count only from the title or cause.
func TestGeneralVocabularyTags(t *testing.T) {
	cases := []struct {
		name, md string
		want     []string
		not      []string
	}{
		{"ru", "# Разбор: бот в Телеграм молчал\n\n## Причина\n\nПричиной стал истёкший токен бота Телеграм, а systemd не перезапускал сервис.\n\n## Решение\n\n- Выпустили новый токен.\n", []string{"telegram", "systemd"}, nil},
		{"zh", "# 故障复盘：阿里云上的 Kafka 消费积压\n\n## 根本原因\n\n根本原因是阿里云的磁盘吞吐到达上限，Kafka 消费变慢。\n\n## 解决方案\n\n- 更换磁盘。\n", []string{"aliyun", "kafka"}, nil},
		{"en slack in passing", "# Postmortem: Zookeeper sessions expired\n\n## Root cause\n\nThe root cause was a long GC pause in Zookeeper.\n\n## Resolution\n\n- We posted in Slack.\n- We tuned the heap and told Slack.\n", []string{"zookeeper"}, []string{"slack"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tags := classifyMarkdown(t, tc.md).Tags
			for _, w := range tc.want {
				if !slices.Contains(tags, w) {
					t.Errorf("tags %v lack %q", tags, w)
				}
			}
			for _, w := range tc.not {
				if slices.Contains(tags, w) {
					t.Errorf("tags %v hold %q", tags, w)
				}
			}
		})
	}
}

// hasTechSuffix is the expression it replaced, word for word.
func TestHasTechSuffix(t *testing.T) {
	re := regexp.MustCompile(`[a-z]{2,}(?:-?db|-?mq|-?ctl)$`)
	for _, w := range []string{"influxdb", "zeromq", "kubectl", "kube-ctl", "x-db", "ab-db", "abdb", "db", "adb",
		"a-db", "ab--db", "mongodb", "Mongodb", "MongoDB", "rabbitmq", "mq", "ctl", "bctl", "ab_db", "a1db", "ab1db",
		"systemctl", "journalctl", "feedback", "bomb", "ctldb", "x", "", "лаdb", "ab-mq", "ab-ctl", "a-ctl"} {
		if got, want := hasTechSuffix(w), re.MatchString(w); got != want {
			t.Errorf("hasTechSuffix(%q) = %v, the expression says %v", w, got, want)
		}
	}
}

func FuzzHasTechSuffix(f *testing.F) {
	re := regexp.MustCompile(`[a-z]{2,}(?:-?db|-?mq|-?ctl)$`)
	for _, w := range []string{"influxdb", "kube-ctl", "a-db", "ab--db"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		if got, want := hasTechSuffix(w), re.MatchString(w); got != want {
			t.Errorf("hasTechSuffix(%q) = %v, the expression says %v", w, got, want)
		}
	})
}
