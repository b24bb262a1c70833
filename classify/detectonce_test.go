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
		{"zh", "# 一次长连接断开的排查\n\n上周五我们收到用户反馈，接口请求三分钟后连接被直接关闭。\n\n## 排查过程\n\n" +
			"我们先看了网关日志，请求时间只有 30 秒。\n\n显而易见，代理配置的超时是 600 秒，但是用户反馈的是 3 分钟出现超时。\n\n## 原因\n\n最后发现是 nginx reload 关闭了旧的 worker。\n",
			"上周五我们收到用户反馈", "显而易见"},
		{"ru", "# Обрывы соединений\n\nВ пятницу клиент пожаловался, что запросы обрываются через три минуты.\n\n## Расследование\n\n" +
			"Логи шлюза показывали запросы всего по 30 секунд.\n\nНо клиент пожаловался именно на три минуты, и это не сходилось.\n\n## Причина\n\nПерезагрузка nginx закрывала старые воркеры.\n",
			"В пятницу клиент пожаловался", "Но клиент пожаловался"},
		{"en", "# Dropped connections\n\nOn Friday a customer reported that requests were cut off after three minutes.\n\n## Investigation\n\n" +
			"The gateway logs showed requests of only 30 seconds.\n\nYet the customer reported three minutes, which did not match.\n\n## Root cause\n\nAn nginx reload closed the old workers.\n",
			"On Friday a customer reported", "Yet the customer reported"},
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
