package extract

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
)

// MaxInput bounds what Extract will parse; larger inputs are cut, not parsed whole.
const MaxInput = 16 << 20

// Extract reads raw bytes (UTF-8 from the fetcher; anything else goes
// through ToUTF8) as the format in opts and returns the Document. Its Text
// is never longer than the input as UTF-8.
func Extract(raw []byte, opts Options) (*Document, error) {
	if len(raw) > MaxInput {
		raw = raw[:MaxInput]
	}
	raw = ToUTF8(raw, opts.ContentType)
	format := opts.Format
	if format == "" {
		format = SniffFormat(opts.URL, opts.ContentType, raw)
	}
	var (
		d   *Document
		err error
	)
	switch format {
	case FormatHTML:
		d, err = extractHTML(escapeGrowingRefs(raw), opts)
	case FormatMarkdown:
		d, err = extractMarkdown(raw, opts)
	case FormatText:
		d, err = extractText(raw, opts)
	default:
		return nil, fmt.Errorf("extract: unknown format %q", format)
	}
	if err != nil {
		return nil, err
	}
	d.Format = format
	if d.URL == "" {
		d.URL = opts.URL
	}
	if d.Title == "" && format == FormatMarkdown {
		d.Title = leadHeadingTitle(d.Sections)
	}
	if d.Title == "" {
		d.Title = slugTitle(opts.URL)
	}
	refineOrganization(d)
	return d, nil
}

// growingRefs are the only HTML character references whose characters
// are longer than the reference (two code points each: "&nGt;" is five
// bytes, "≫⃒" six); they stay as written, so Text stays no longer than the
// input, as in Markdown (unescapeShorter).
var growingRefs = [][]byte{[]byte("&nLt;"), []byte("&nGt;")}

// escapeGrowingRefs escapes the ampersand of every growing reference.
func escapeGrowingRefs(raw []byte) []byte {
	if !bytes.Contains(raw, []byte("&n")) {
		return raw
	}
	for _, ref := range growingRefs {
		if bytes.Contains(raw, ref) {
			raw = bytes.ReplaceAll(raw, ref, append([]byte("&amp;"), ref[1:]...))
		}
	}
	return raw
}

// SniffFormat picks a format from the content type, the URL or file name, and the bytes.
func SniffFormat(name, contentType string, raw []byte) string {
	ct := strings.ToLower(contentType)
	switch {
	case strings.Contains(ct, "html"):
		return FormatHTML
	case strings.Contains(ct, "markdown"):
		return FormatMarkdown
	}
	switch strings.ToLower(path.Ext(strings.SplitN(name, "?", 2)[0])) {
	case ".html", ".htm", ".xhtml":
		return FormatHTML
	case ".md", ".markdown", ".mdx":
		return FormatMarkdown
	case ".txt", ".text":
		return FormatText
	}
	head := bytes.ToLower(bytes.TrimSpace(raw[:min(len(raw), 1024)]))
	if bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html")) || bytes.Contains(head, []byte("<body")) || bytes.Contains(head, []byte("<head")) {
		return FormatHTML
	}
	if strings.Contains(ct, "text/plain") {
		return FormatText
	}
	if bytes.HasPrefix(head, []byte("---\n")) || bytes.HasPrefix(head, []byte("# ")) {
		return FormatMarkdown
	}
	return FormatText
}

// ToUTF8 returns raw as valid UTF-8. Valid UTF-8 (the fetcher's output) is
// returned as is. Otherwise a charset the page declares (BOM, Content-Type,
// <meta charset>) is decoded; text that is UTF-8 with a few bad bytes
// loses those bytes rather than being read as a legacy charset.
func ToUTF8(raw []byte, contentType string) []byte {
	if utf8.Valid(raw) {
		if fixed, ok := undoMojibake(raw); ok {
			return fixed
		}
		return raw
	}
	if bad := invalidRuns(raw); bad*200 > len(raw) {
		if enc, name, _ := charset.DetermineEncoding(raw, contentType); name != "utf-8" {
			if out, err := enc.NewDecoder().Bytes(raw); err == nil {
				return bytes.ToValidUTF8(out, nil)
			}
		}
	}
	return bytes.ToValidUTF8(raw, nil)
}

// invalidRuns counts the invalid UTF-8 sequences in b.
func invalidRuns(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			n++
		}
		b = b[max(size, 1):]
	}
	return n
}

// undoMojibake repairs a page that declares a multi-byte legacy charset
// (GBK, Big5, Shift_JIS, EUC-KR ...) but arrives as valid UTF-8 made of
// Latin-1 letters: somewhere on the way its bytes were read as ISO 8859-1,
// -15 or Windows-1252 (once, or twice over) and stored as UTF-8. Such text
// is unreadable ("Ã‰Â¡Â¡") and nothing of it can be matched. The bytes are
// recovered by encoding back to the single-byte charset and decoded as
// declared; the repair is kept only when it yields the declared script
// almost without errors. Pages that hold any CJK text are left alone.
func undoMojibake(raw []byte) ([]byte, bool) {
	enc := declaredMultiByte(raw)
	if enc == nil {
		return nil, false
	}
	latin, other := 0, 0
	for _, r := range string(raw) {
		switch {
		case r < 0x80:
		case r <= 0xFF:
			latin++
		case r >= 0x2E80:
			return nil, false // real CJK (or other wide) text: not mojibake
		default:
			other++
		}
	}
	if latin < 200 || other*4 > latin {
		return nil, false
	}
	s := raw
	// a second layer: the UTF-8 of the mis-read text, itself read as Latin-1
	if other == 0 {
		if b, ok := toSingleByte(s, nil); ok && utf8.Valid(b) {
			s = b
		}
	}
	var best []byte
	bestBad := -1
	for _, single := range []*charmap.Charmap{charmap.ISO8859_15, charmap.Windows1252} {
		b, ok := toSingleByte(s, single)
		if !ok {
			continue
		}
		out, err := enc.NewDecoder().Bytes(b)
		if err != nil {
			continue
		}
		bad, wide := 0, 0
		for _, r := range string(out) {
			switch {
			case r == utf8.RuneError:
				bad++
			case r >= 0x2E80:
				wide++
			}
		}
		if wide >= 50 && bad*100 <= wide && (bestBad < 0 || bad < bestBad) {
			best, bestBad = out, bad
		}
	}
	return best, best != nil
}

// toSingleByte turns text back into the bytes a single-byte decoder read
// it from: code points below U+0100 stand for themselves (decoders that
// pass C1 controls through), and cm's letters above (€, Œ, Ž, Ÿ ...) for
// their byte. cm nil is plain Latin-1.
func toSingleByte(s []byte, cm *charmap.Charmap) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for _, r := range string(s) {
		if r < 0x100 {
			out = append(out, byte(r))
			continue
		}
		if cm == nil {
			return nil, false
		}
		b, ok := cm.EncodeRune(r)
		if !ok || b < 0x80 {
			return nil, false
		}
		out = append(out, b)
	}
	return out, true
}

// declaredMultiByte is the multi-byte legacy charset a page's head
// declares ("charset=gb2312"), or nil.
func declaredMultiByte(raw []byte) encoding.Encoding {
	head := raw[:min(len(raw), 4096)]
	i := indexFold(head, "charset=")
	if i < 0 {
		return nil
	}
	name := head[i+len("charset="):]
	name = bytes.TrimLeft(name, `"' `)
	end := 0
	for end < len(name) && end < 20 && (name[end] == '-' || name[end] == '_' || name[end] >= '0' && name[end] <= '9' || name[end]|0x20 >= 'a' && name[end]|0x20 <= 'z') {
		end++
	}
	enc, err := htmlindex.Get(string(name[:end]))
	if err != nil {
		return nil
	}
	n, _ := htmlindex.Name(enc)
	switch n {
	case "gbk", "gb18030", "big5", "euc-jp", "iso-2022-jp", "shift_jis", "euc-kr":
		return enc
	}
	return nil
}

// indexFold is bytes.Index for an ASCII lower-case needle, ignoring case.
func indexFold(s []byte, needle string) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		j := 0
		for j < len(needle) && s[i+j]|0x20 == needle[j] {
			j++
		}
		if j == len(needle) {
			return i
		}
	}
	return -1
}
