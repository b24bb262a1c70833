package evalcontent

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/casebook/casebook/extract"
)

// Page is one benchmark page: its HTML decoded to UTF-8 and its gold text.
type Page struct {
	Dataset string // "aeb" or "daniel"
	Lang    string // DAnIEL: en, ru, zh; AEB: ""
	ID      string
	URL     string
	HTML    []byte
	Gold    string
}

// LoadAEB reads dir/ground-truth.json and dir/html/<id>.html.gz.
func LoadAEB(dir string) ([]Page, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		return nil, fmt.Errorf("aeb: %w", err)
	}
	var gt map[string]struct {
		ArticleBody string `json:"articleBody"`
		URL         string `json:"url"`
	}
	if err := json.Unmarshal(raw, &gt); err != nil {
		return nil, fmt.Errorf("aeb: ground truth: %w", err)
	}
	ids := make([]string, 0, len(gt))
	for id := range gt {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	pages := make([]Page, 0, len(ids))
	for _, id := range ids {
		b, err := readGzip(filepath.Join(dir, "html", id+".html.gz"))
		if err != nil {
			return nil, fmt.Errorf("aeb: %s: %w", id, err)
		}
		pages = append(pages, Page{Dataset: "aeb", ID: id, URL: gt[id].URL, HTML: DecodeHTML(b, ""), Gold: gt[id].ArticleBody})
	}
	return pages, nil
}

func readGzip(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

var danielLangs = map[string]string{"English": "en", "Russian": "ru", "Chinese": "zh"}

// LoadDaniel reads dir/doc_lg.json, dir/html/<id> and dir/reference/<id>,
// keeping the English, Russian and Chinese pages that have both files.
func LoadDaniel(dir string) ([]Page, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "doc_lg.json"))
	if err != nil {
		return nil, fmt.Errorf("daniel: %w", err)
	}
	var lg map[string]string
	if err := json.Unmarshal(raw, &lg); err != nil {
		return nil, fmt.Errorf("daniel: doc_lg.json: %w", err)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "html"))
	if err != nil {
		return nil, fmt.Errorf("daniel: %w", err)
	}
	var pages []Page
	for _, e := range ents {
		id := e.Name()
		lang, ok := danielLangs[lg[id]]
		if !ok || e.IsDir() {
			continue
		}
		ref, err := os.ReadFile(filepath.Join(dir, "reference", id))
		if err != nil {
			continue // html without reference: not scorable
		}
		b, err := os.ReadFile(filepath.Join(dir, "html", id))
		if err != nil {
			return nil, fmt.Errorf("daniel: %w", err)
		}
		pages = append(pages, Page{Dataset: "daniel", Lang: lang, ID: id, URL: danielURL(id), HTML: DecodeHTML(b, ""), Gold: ReferenceText(DecodeHTML(ref, ""))})
	}
	return pages, nil
}

// danielURL rebuilds a plausible address from "<date>_<host>_<hash>" so URL
// based rules see the host; the path is unknown.
func danielURL(id string) string {
	parts := strings.SplitN(id, "_", 3)
	if len(parts) < 3 {
		return ""
	}
	return "http://" + parts[1] + "/"
}

var tagRe = regexp.MustCompile(`<[^>]*>`)

// ReferenceText turns DAnIEL's "<p>...</p>" lines into text, one paragraph a line.
func ReferenceText(b []byte) string {
	s := strings.ReplaceAll(string(b), "</p>", "\n")
	s = html.UnescapeString(tagRe.ReplaceAllString(s, " "))
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// DecodeHTML returns the page as UTF-8, decoding a declared legacy
// charset (see extract.ToUTF8).
func DecodeHTML(b []byte, contentType string) []byte {
	return extract.ToUTF8(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), contentType)
}
