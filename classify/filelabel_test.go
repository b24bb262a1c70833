package classify

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/casebook/casebook/extract"
)

func TestIsFileLabel(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"File: src/lib/tools.ts", true},
		{"**Files:** `deploy/nginx.conf`", true},
		{"Файл: docs/FIX.md", true},
		{"Файл:conf/nginx/default.conf", true},
		{"文件：/etc/hosts", true},
		{"路径: config.yaml", true},
		// a sentence after the label is the story, not a file's name
		{"File: the upload handler dropped the header.", false},
		{"Файл: конфигурация nginx была неверной", false},
		{"Profile: src/app.ts", false},
		{"File:", false},
		{"Root cause: a typo in config.yaml", false},
	}
	for _, tt := range tests {
		if got := isFileLabel(tt.text); got != tt.want {
			t.Errorf("isFileLabel(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// A fix section's "File: …" line names where the change went; the draft's
// remediation holds the change, not the file name.
func TestFileLabelNotDrafted(t *testing.T) {
	checkFixLineNotDrafted(t, map[string]string{"en": "File: conf/nginx/default.conf", "ru": "Файл: conf/nginx/default.conf",
		"zh": "文件：conf/nginx/default.conf"}, func(item string) bool { return strings.Contains(item, "default.conf") })
}

// checkFixLineNotDrafted drafts a made-up fix section in each language with
// line between its two steps and fails when no remediation comes out or
// an item is one bad reports.
func checkFixLineNotDrafted(t *testing.T, line map[string]string, bad func(item string) bool) {
	t.Helper()
	docs := map[string]string{
		"en": "# Upload outage\n\n## Fix\n\nWe forced HTTP/1.1 for the upload endpoint.\n\n%s\n\nWe reloaded nginx and uploads worked again.\n",
		"ru": "# Сбой загрузки\n\n## Решение\n\nМы включили HTTP/1.1 для загрузки файлов.\n\n%s\n\nПерезапустили nginx, загрузка заработала.\n",
		"zh": "# 上传故障\n\n## 解决\n\n我们给上传接口强制使用 HTTP/1.1。\n\n%s\n\n重启 nginx 后上传恢复正常。\n",
	}
	for lang, md := range docs {
		doc, err := extract.Extract([]byte(fmt.Sprintf(md, line[lang])), extract.Options{Format: extract.FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		cs := testClassifier().Classify(doc)
		if len(cs.Remediation) == 0 {
			t.Errorf("%s: no remediation drafted", lang)
		}
		for _, item := range cs.Remediation {
			if bad(item) {
				t.Errorf("%s: remediation holds %q", lang, item)
			}
		}
	}
}

func TestSignature(t *testing.T) {
	tests := []struct {
		text, author string
		want         bool
	}{
		{"Ryan Doe", "Ryan Doe", true},
		{"— Ryan Doe", "Ryan Doe", true},
		{"Cheers, Ryan Doe", "Ryan Doe", true},
		{"С уважением, Иван Петров", "Иван Петров", true},
		{"谢谢，小明", "小明", true},
		{"Ryan Doe fixed the cache.", "Ryan Doe", false},
		{"Ryan Doe", "", false},
	}
	for _, tt := range tests {
		if got := signature(tt.text, tt.author); got != tt.want {
			t.Errorf("signature(%q, %q) = %v, want %v", tt.text, tt.author, got, tt.want)
		}
	}
}

// A paragraph without a word ("📈", "→ → →") is no sentence of any field,
// whatever the heading over it.
func TestWordlessParagraphNotDrafted(t *testing.T) {
	checkFixLineNotDrafted(t, map[string]string{"en": "📈", "ru": "📈", "zh": "📈"},
		func(item string) bool { return !strings.ContainsFunc(item, unicode.IsLetter) })
}
