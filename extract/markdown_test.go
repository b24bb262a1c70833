package extract

import "testing"

func TestInlineMD(t *testing.T) {
	tests := []struct{ in, want string }{
		{"see the [guide](https://x.example/g) and ![diagram](d.png)", "see the guide and diagram"},
		{"**bold** and `code` and *em* and _em_", "bold and code and em and em"},
		{"line<br>break <span class=\"x\">text</span>", "linebreak text"},
		{"a < b and c > d", "a < b and c > d"},
		{"<https://example.com/x>", "https://example.com/x"},
		{"snake_case_name stays", "snake_case_name stays"},
		{"[ref link][1]", "ref link"},
	}
	for _, tt := range tests {
		if got := inlineMD(tt.in); got != tt.want {
			t.Errorf("inlineMD(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A soft line break inside a Chinese or Japanese paragraph is no space;
// between Latin, Cyrillic or Korean words, and between Han and Latin, it is.
func TestMarkdownSoftBreaks(t *testing.T) {
	tests := []struct{ name, md, want string }{
		{"zh", "排查时发\n现连接池已满。", "排查时发现连接池已满。"},
		{"zh punctuation", "连接池已满，\n请求全部超时。", "连接池已满，请求全部超时。"},
		{"ja", "再起動した\nところ復旧した。", "再起動したところ復旧した。"},
		{"en", "the pool was\nexhausted", "the pool was exhausted"},
		{"ru", "пул соединений\nзакончился", "пул соединений закончился"},
		{"ko", "연결 풀이\n가득 찼다", "연결 풀이 가득 찼다"},
		{"han then latin", "升级了\nRedis 之后", "升级了 Redis 之后"},
		{"quote", "> 排查时发\n> 现问题", "排查时发现问题"},
	}
	for _, tt := range tests {
		doc, err := Extract([]byte("# T\n\n"+tt.md+"\n"), Options{Format: FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, s := range doc.Sections {
			for _, b := range s.Blocks {
				got += b.Text
			}
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
