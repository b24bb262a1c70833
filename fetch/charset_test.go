package fetch

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// legacyCases are this package's own texts (testdata/charset) in the
// encodings the issue names, with the charset detection must report.
var legacyCases = []struct {
	file string
	enc  encoding.Encoding
	name string // what Decode reports
}{
	{"ru.txt", charmap.Windows1251, "windows-1251"},
	{"ru.txt", charmap.KOI8R, "koi8-r"},
	{"zh-hans.txt", simplifiedchinese.GBK, "gb18030"}, // GB18030 is a superset: same decoding
	{"zh-hans.txt", simplifiedchinese.GB18030, "gb18030"},
	{"zh-hant.txt", traditionalchinese.Big5, "big5"},
	{"fr.txt", charmap.Windows1252, "windows-1252"},
}

func readText(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "charset", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func encodeWith(t testing.TB, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return b
}

func TestLegacyCharsetsUndeclared(t *testing.T) {
	for _, tt := range legacyCases {
		t.Run(tt.file+"/"+tt.name, func(t *testing.T) {
			text := readText(t, tt.file)
			raw := encodeWith(t, tt.enc, text)
			// Undeclared, as a plain text and as an HTML page.
			got, name := Decode(raw, "text/plain")
			if name != tt.name || string(got) != text {
				t.Errorf("text/plain: decoded as %s; equal=%v", name, string(got) == text)
			}
			page := append([]byte("<!DOCTYPE html><html><head><title>x</title></head><body><p>"), raw...)
			page = append(page, "</p></body></html>"...)
			got, name = Decode(page, "text/html")
			if name != tt.name || !strings.Contains(string(got), text) {
				t.Errorf("text/html: decoded as %s", name)
			}
			// A short snippet: the first line alone.
			first, _, _ := strings.Cut(text, "\n")
			got, name = Decode(encodeWith(t, tt.enc, first), "")
			if string(got) != first {
				t.Errorf("first line decoded as %s: %q", name, got)
			}
		})
	}
}

func TestLegacyCharsetsOverHTTP(t *testing.T) {
	for _, tt := range legacyCases {
		t.Run(tt.file+"/"+tt.name, func(t *testing.T) {
			text := readText(t, tt.file)
			raw := encodeWith(t, tt.enc, "<html><body><article>"+text+"</article></body></html>")
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html") // no charset anywhere
				w.Write(raw)
			})
			p, err := localFetcher(t, nil).Fetch(context.Background(), Request{URL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			if p.Charset != tt.name {
				t.Errorf("charset %s, want %s", p.Charset, tt.name)
			}
			if !strings.Contains(string(p.Body), text) {
				t.Errorf("body not decoded to the original text")
			}
			if p.RawSHA256 != hexSHA256(p.Body) {
				t.Error("sha256 is not of the decoded body")
			}
		})
	}
}

func TestDecodePrecedence(t *testing.T) {
	ru := "Отказ базы данных"
	cp1251 := encodeWith(t, charmap.Windows1251, ru)
	koi := encodeWith(t, charmap.KOI8R, ru)
	gbk := encodeWith(t, simplifiedchinese.GBK, "数据库故障")
	utf16le := encodeWith(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), ru)
	tests := []struct {
		name, ctype string
		body        []byte
		wantName    string
		wantText    string
	}{
		{"utf-8 BOM beats header", "text/html; charset=windows-1251", append([]byte("\xef\xbb\xbf"), ru...), "utf-8", ru},
		{"utf-16 BOM", "text/plain", utf16le, "utf-16le", ru},
		{"header", "text/plain; charset=koi8-r", koi, "koi8-r", ru},
		{"header label alias", "text/plain; charset=\"CP1251\"", cp1251, "windows-1251", ru},
		{"header beats meta", "text/html; charset=koi8-r",
			append([]byte(`<meta charset="windows-1251">`), koi...), "koi8-r", ru},
		{"meta charset", "text/html", append([]byte(`<head><meta charset="windows-1251"></head>`), cp1251...), "windows-1251", ru},
		{"meta http-equiv", "text/html",
			append([]byte(`<meta http-equiv="Content-Type" content="text/html; charset=gb2312">`), gbk...), "gbk", "数据库故障"},
		{"xml declaration", "application/rss+xml",
			append([]byte(`<?xml version="1.0" encoding="KOI8-R"?><rss>`), koi...), "koi8-r", ru},
		{"unknown label falls through to detection", "text/plain; charset=x-bogus", cp1251, "windows-1251", ru},
		{"iso-8859-1 reads as windows-1252", "text/plain; charset=iso-8859-1", []byte("caf\xe9 \x93ok\x94"), "windows-1252", "café “ok”"},
		{"ascii", "text/plain", []byte("plain ascii"), "utf-8", "plain ascii"},
		{"utf-8 undeclared", "text/plain", []byte(ru), "utf-8", ru},
		{"utf-8 with a stray byte", "text/plain", []byte(ru + " \xff " + ru + " " + ru), "utf-8", ru},
		{"declared utf-16 without BOM reads as utf-8", "text/html; charset=utf-16", []byte(ru), "utf-8", ru},
	}
	for _, tt := range tests {
		got, name := Decode(tt.body, tt.ctype)
		if name != tt.wantName {
			t.Errorf("%s: charset %s, want %s", tt.name, name, tt.wantName)
		}
		if !strings.Contains(string(got), tt.wantText) {
			t.Errorf("%s: %q does not contain %q", tt.name, got, tt.wantText)
		}
	}
}

func TestRewriteXMLEncoding(t *testing.T) {
	in := []byte(`<?xml version="1.0" encoding='windows-1251'?><rss/>`)
	if got := string(rewriteXMLEncoding(in)); got != `<?xml version="1.0" encoding='UTF-8'?><rss/>` {
		t.Errorf("got %s", got)
	}
	plain := []byte(`<rss encoding="x"/>`)
	if got := rewriteXMLEncoding(plain); !bytes.Equal(got, plain) {
		t.Errorf("changed a body without a declaration: %s", got)
	}
}

// TestDetectOnLangidBench measures the detector on text it was not written
// against: the lingua sentences in shared/bench/langid, encoded here in
// memory. It skips when ../shared is absent.
func TestDetectOnLangidBench(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "bench", "langid", "lingua-testdata")
	if _, err := os.Stat(root); err != nil {
		t.Skip("shared bench absent")
	}
	cases := []struct {
		kind string // sentences (avg 65 runes ru, 48 zh) or word-pairs (2 Han characters)
		lang string
		enc  encoding.Encoding
		want string
		min  float64
	}{
		{"sentences", "ru", charmap.Windows1251, "windows-1251", 0.99},
		{"sentences", "ru", charmap.KOI8R, "koi8-r", 0.99},
		{"sentences", "uk", charmap.Windows1251, "windows-1251", 0.99},
		{"sentences", "be", charmap.Windows1251, "windows-1251", 0.95},
		{"sentences", "zh", simplifiedchinese.GBK, "gb18030", 0.99},
		{"sentences", "zh", simplifiedchinese.GB18030, "gb18030", 0.99},
		{"sentences", "zh", traditionalchinese.Big5, "big5", 0.9}, // only sentences Big5 can encode
		{"word-pairs", "ru", charmap.Windows1251, "windows-1251", 0.98},
		{"word-pairs", "ru", charmap.KOI8R, "koi8-r", 0.98},
		{"word-pairs", "zh", simplifiedchinese.GBK, "gb18030", 0.85},
		{"word-pairs", "zh", traditionalchinese.Big5, "big5", 0.85},
	}
	for _, c := range cases {
		f, err := os.Open(filepath.Join(root, c.kind, c.lang+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		n, ok := 0, 0
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			raw, err := c.enc.NewEncoder().Bytes(sc.Bytes())
			if err != nil || !hasHigh(raw) {
				continue
			}
			n++
			if got, _ := DetectCharset(raw); got == c.want {
				ok++
			}
		}
		f.Close()
		acc := float64(ok) / float64(n)
		t.Logf("%s %s as %s: %d/%d = %.3f", c.kind, c.lang, c.want, ok, n, acc)
		if n > 0 && acc < c.min {
			t.Errorf("%s %s as %s: accuracy %.3f below %.2f", c.kind, c.lang, c.want, acc, c.min)
		}
	}
	// Western text: the articles labelled latin, in windows-1252.
	tsv := filepath.Join("..", "..", "shared", "bench", "langid", "derived", "articles.tsv")
	if b, err := os.ReadFile(tsv); err == nil {
		n, ok := 0, 0
		for _, line := range strings.Split(string(b), "\n") {
			label, text, found := strings.Cut(line, "\t")
			if !found || label != "latin" {
				continue
			}
			raw, err := charmap.Windows1252.NewEncoder().Bytes([]byte(text))
			if err != nil || !hasHigh(raw) {
				continue
			}
			n++
			if got, _ := DetectCharset(raw); got == "windows-1252" {
				ok++
			}
		}
		t.Logf("latin articles as windows-1252: %d/%d", ok, n)
		if n > 0 && float64(ok)/float64(n) < 0.95 {
			t.Errorf("windows-1252 accuracy %d/%d", ok, n)
		}
	}
}

func hasHigh(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("<meta charset=koi8-r>\xf0\xd2\xc9\xd7\xc5\xd4"), "text/html")
	f.Add([]byte("\xef\xbb\xbfhello"), "text/plain")
	f.Add([]byte("\xff\xfeh\x00i\x00"), "")
	f.Add([]byte(`<?xml version="1.0" encoding="gbk"?><a>`+"\xca\xfd\xbe\xdd</a>"), "application/xml")
	f.Add([]byte("\xb9\xca\xd5\xcf\xb8\xb4\xc5\xcc"), "text/plain; charset=")
	f.Add([]byte("\xa5\xbb\xa4\xe5"), "text/html; charset=big5")
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		out, name := Decode(body, ctype)
		if !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8 out of %q (%s)", body, name)
		}
		if name == "" {
			t.Fatal("no charset named")
		}
		if name, _ := DetectCharset(body); name == "" {
			t.Fatal("detector named nothing")
		}
		// What Decode returns reads back unchanged as declared UTF-8
		// (bar a leading BOM, which Decode strips).
		again, _ := Decode(out, "text/plain; charset=utf-8")
		if !bytes.HasPrefix(out, []byte("\xef\xbb\xbf")) && !bytes.Equal(again, out) {
			t.Fatalf("not stable: %q -> %q", out, again)
		}
	})
}

func TestParseContentType(t *testing.T) {
	tests := []struct{ in, media, charset string }{
		{"text/html; charset=UTF-8", "text/html", "UTF-8"},
		{"TEXT/HTML", "text/html", ""},
		{"text/html;charset", "text/html", ""},
		{"text/html; charset=gbk; charset=gbk", "text/html", "gbk"},
		{`text/plain; charset="windows-1251"; x`, "text/plain", "windows-1251"},
		{"", "", ""},
		{"garbage", "", ""},
	}
	for _, tt := range tests {
		m, c := parseContentType(tt.in)
		if m != tt.media || c != tt.charset {
			t.Errorf("parseContentType(%q) = %q, %q; want %q, %q", tt.in, m, c, tt.media, tt.charset)
		}
	}
}

// TestDetectOnCorpus encodes whole documents of shared/corpus (en, ru, zh
// write-ups, HTML and Markdown) in the legacy encodings of their language,
// in memory, and checks the detector names the encoding. It skips when
// ../shared is absent.
func TestDetectOnCorpus(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "corpus")
	tsv, err := os.ReadFile(filepath.Join(root, "SOURCES.tsv"))
	if err != nil {
		t.Skip("shared corpus absent")
	}
	encs := map[string][]struct {
		enc  encoding.Encoding
		name string
	}{
		"ru": {{charmap.Windows1251, "windows-1251"}, {charmap.KOI8R, "koi8-r"}},
		"zh": {{simplifiedchinese.GBK, "gb18030"}, {simplifiedchinese.GB18030, "gb18030"}},
		"en": {{charmap.Windows1252, "windows-1252"}},
	}
	total, ok := 0, 0
	for _, line := range strings.Split(string(tsv), "\n")[1:] {
		cols := strings.Split(line, "\t")
		if len(cols) < 2 {
			continue
		}
		doc, err := os.ReadFile(filepath.Join(root, cols[0]))
		if err != nil {
			continue
		}
		for _, e := range encs[cols[1]] {
			raw, err := encoding.ReplaceUnsupported(e.enc.NewEncoder()).Bytes(doc)
			if err != nil || !hasHigh(raw) {
				continue
			}
			total++
			got, margin := DetectCharset(raw)
			if got == e.name {
				ok++
			} else {
				t.Errorf("%s as %s: detected %s (margin %.2f)", cols[0], e.name, got, margin)
			}
		}
	}
	t.Logf("corpus documents detected: %d/%d", ok, total)
}
