package extract

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// budget is the most one page may take, on a loaded CI machine (ten
// times that under the race detector, see race_test.go).
var budget = 3 * time.Second

// hostile inputs: deep nesting, broken markup, binary, giant attributes.
func hostileInputs() map[string][]byte {
	return map[string][]byte{
		"empty":            nil,
		"nul bytes":        bytes.Repeat([]byte{0}, 4096),
		"invalid utf8":     []byte("<html><body><p>caf\xe9 \xff\xfe cr\xc3\xa8me</p></body></html>"),
		"deep divs":        []byte("<html><body>" + strings.Repeat("<div>", 100000) + "deep text here" + strings.Repeat("</div>", 100000)),
		"deep unclosed":    []byte("<body>" + strings.Repeat("<b><i><span>", 60000) + "x"),
		"deep tables":      []byte(strings.Repeat("<table><tr><td>", 30000) + "cell"),
		"deep lists":       []byte(strings.Repeat("<ul><li>", 50000) + "item"),
		"big table":        []byte("<table>" + strings.Repeat("<tr><td>cell a</td><td>cell b</td></tr>", 50000) + "</table>"),
		"many br":          []byte("<p>" + strings.Repeat("word<br>", 200000) + "</p>"),
		"huge attribute":   []byte(`<div class="` + strings.Repeat("a ", 500000) + `">text</div>`),
		"script only":      []byte("<html><head><script>" + strings.Repeat("var a=1;", 10000) + "</script></head><body></body></html>"),
		"unclosed comment": []byte("<html><body><p>before</p><!-- never closed " + strings.Repeat("x", 10000)),
		"entities":         []byte("<p>" + strings.Repeat("&amp;&lt;&#x1F600;&nbsp;&bogus;&#0;&#xD800;", 5000) + "</p>"),
		"binary":           binaryNoise(1 << 16),
		"json ld junk":     []byte(`<html><head><script type="application/ld+json">{"@graph":[[[[[[[[[[[{"@type":"Article","headline":1}]]]]]]]]]]]}</script></head><body><p>x</p></body></html>`),
	}
}

func binaryNoise(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func TestHostileInputs(t *testing.T) {
	for name, raw := range hostileInputs() {
		for _, format := range []string{FormatHTML, FormatMarkdown, FormatText} {
			t.Run(name+"/"+format, func(t *testing.T) {
				start := time.Now()
				d, err := Extract(raw, Options{Format: format})
				if took := time.Since(start); took > budget {
					t.Errorf("took %v, budget %v", took, budget)
				}
				if err != nil {
					return // refusing is fine; crashing or hanging is not
				}
				checkDoc(t, d)
				// the input's text is the input as UTF-8: a legacy charset grows when decoded
				if in := len(ToUTF8(raw, "")); len(d.Text) > in {
					t.Errorf("Text (%d bytes) longer than input as UTF-8 (%d)", len(d.Text), in)
				}
				for _, f := range []string{d.Title, d.Author, d.Site, d.Organization} {
					if !utf8.ValidString(f) {
						t.Errorf("metadata not valid UTF-8: %q", f)
					}
				}
			})
		}
	}
}

// TestDeepTextKept checks that flattening deep markup keeps its text.
func TestToUTF8(t *testing.T) {
	cp1251 := append([]byte(`<meta charset="windows-1251"><p>`), 0xd1, 0xe1, 0xee, 0xe9) // "Сбой"
	tests := []struct {
		name string
		in   []byte
		ct   string
		want string
	}{
		{"utf8 untouched", []byte("<p>сбой 故障</p>"), "", "<p>сбой 故障</p>"},
		{"meta charset", cp1251, "", `<meta charset="windows-1251"><p>Сбой`},
		{"content type", []byte{0xd1, 0xe1, 0xee, 0xe9}, "text/html; charset=windows-1251", "Сбой"},
		{"utf8 with one bad byte", append([]byte(strings.Repeat("долгий текст ", 40)), 0xff), "", strings.Repeat("долгий текст ", 40)},
	}
	for _, tt := range tests {
		if got := string(ToUTF8(tt.in, tt.ct)); got != tt.want {
			t.Errorf("%s: ToUTF8 = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDeepTextKept(t *testing.T) {
	d, err := Extract(hostileInputs()["deep divs"], Options{Format: FormatHTML})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text, "deep text here") {
		t.Fatalf("text under deep nesting lost: %q", d.Text)
	}
}

func FuzzExtract(f *testing.F) {
	for _, fx := range fixtures {
		if raw, err := readFixture(fx.file); err == nil {
			f.Add(raw, uint8(0))
		}
	}
	for _, raw := range hostileInputs() {
		if len(raw) < 1<<14 {
			f.Add(raw, uint8(1))
		}
	}
	f.Add([]byte("---\ntitle: x\ntags: [a, b]\n---\n# H\n\n- item\n```\ncode\n"), uint8(1))
	f.Add([]byte(strings.Repeat("<div><p>", 300)+"deep"), uint8(0))
	f.Add([]byte(strings.Repeat("<ul><li>", 200)+strings.Repeat("</li></ul>", 150)+"<b><i></b></i>"), uint8(0))
	f.Add([]byte("<p>a<br><br>b</p><table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>"), uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, mode uint8) {
		format := []string{FormatHTML, FormatMarkdown, FormatText, ""}[mode%4]
		start := time.Now()
		d, err := Extract(raw, Options{Format: format, URL: "https://example.com/2021/10/21/post"})
		if took := time.Since(start); took > budget {
			t.Fatalf("took %v on %d bytes", took, len(raw))
		}
		if err != nil {
			return
		}
		checkDoc(t, d)
		if in := len(ToUTF8(raw, "")); len(d.Text) > in {
			t.Fatalf("Text (%d bytes) longer than input as UTF-8 (%d)", len(d.Text), in)
		}
		if !utf8.ValidString(d.Title) || !utf8.ValidString(d.Author) {
			t.Fatalf("metadata not valid UTF-8")
		}
	})
}
