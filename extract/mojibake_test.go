package extract

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// misread is what a page's bytes become when a single-byte decoder that
// passes C1 controls through reads them and the result is stored as UTF-8.
func misread(b []byte, cm *charmap.Charmap) []byte {
	var sb strings.Builder
	for _, c := range b {
		r := rune(c)
		if cm != nil {
			if d := cm.DecodeByte(c); d >= 0x100 {
				r = d
			}
		}
		sb.WriteRune(r)
	}
	return []byte(sb.String())
}

func legacy(t *testing.T, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUndoMojibake(t *testing.T) {
	const zh = "数据库主节点的磁盘在凌晨写满，订单服务随后开始大量报错，值班工程师在十分钟内切换到备用节点并清理了过期日志。"
	const tw = "資料庫主節點的磁碟在凌晨寫滿，訂單服務隨後開始大量報錯，值班工程師在十分鐘內切換到備用節點並清理了過期日誌。"
	page := func(cs, body string) string {
		return `<html><head><meta http-equiv="Content-Type" content="text/html; charset=` + cs + `"><title>t</title></head><body><p>` +
			strings.Repeat(body, 4) + `</p></body></html>`
	}
	tests := []struct {
		name  string
		raw   []byte
		fixed bool
		want  string // in the result when fixed
	}{
		{"GBK read as ISO 8859-15", misread(legacy(t, simplifiedchinese.GBK, page("gb2312", zh)), charmap.ISO8859_15), true, zh},
		{"GBK read as Windows-1252", misread(legacy(t, simplifiedchinese.GBK, page("GBK", zh)), charmap.Windows1252), true, zh},
		{"GBK read twice", misread(misread(legacy(t, simplifiedchinese.GBK, page("gbk", zh)), charmap.ISO8859_15), nil), true, zh},
		{"Big5 read as Latin-1", misread(legacy(t, traditionalchinese.Big5, page("big5", tw)), nil), true, tw},
		{"sound UTF-8 page declaring GBK", []byte(page("gbk", zh)), false, ""},
		{"Latin-1 text declaring UTF-8", []byte(page("utf-8", strings.Repeat("Café déjà vu à l'été, naïve façade. ", 10))), false, ""},
		{"Latin-1 text declaring nothing", []byte(strings.Repeat("<p>Ångström Ærø Øresund Üße. </p>", 40)), false, ""},
		{"Latin-1 text declaring GBK", []byte(page("gbk", strings.Repeat("Café déjà vu à l'été, naïve façade, Müller grüßt Ærø. ", 60))), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := undoMojibake(tt.raw)
			if ok != tt.fixed {
				t.Fatalf("repaired = %v, want %v", ok, tt.fixed)
			}
			if ok && !strings.Contains(string(out), tt.want) {
				t.Errorf("repaired text lacks the original: %.200q", out)
			}
			got := ToUTF8(tt.raw, "")
			if !ok && string(got) != string(tt.raw) {
				t.Errorf("ToUTF8 changed a page it should leave alone")
			}
			if len(got) > len(tt.raw) {
				t.Errorf("ToUTF8 grew the page: %d > %d bytes", len(got), len(tt.raw))
			}
		})
	}
}
