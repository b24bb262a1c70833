package classify

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/casebook/casebook/extract"
)

// TestNewsPages runs the DAnIEL news pages (en, ru, zh) of ../shared/bench:
// documents this package was not written against. Their language must be
// found, and news is not an incident write-up, so few may pass relevance.
func TestNewsPages(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "bench", "daniel")
	raw, err := os.ReadFile(filepath.Join(dir, "doc_lg.json"))
	if err != nil {
		t.Skipf("daniel bench absent: %v", err)
	}
	var langs map[string]string
	if err := json.Unmarshal(raw, &langs); err != nil {
		t.Fatal(err)
	}
	code := map[string]string{"English": "en", "Russian": "ru", "Chinese": "zh"}
	c := testClassifier()
	n, right, relevant, drafted := 0, 0, 0, 0
	wrong := map[string]int{}
	for name, lang := range langs {
		body, err := os.ReadFile(filepath.Join(dir, "html", name))
		if err != nil {
			continue
		}
		doc, err := extract.Extract(body, extract.Options{Format: extract.FormatHTML})
		if err != nil {
			continue
		}
		cs := c.Classify(doc)
		n++
		if cs.Language == code[lang] {
			right++
		} else {
			wrong[code[lang]+"->"+cs.Language]++
		}
		if cs.Relevance.Band != BandNotIncident && cs.Language != "und" {
			drafted++ // a crawl drafts it (flagged under the band's top)
		}
		if cs.Relevance.IsPostmortem {
			relevant++
			if testing.Verbose() {
				t.Logf("relevant %.2f: %s %q", cs.Relevance.Score, name, doc.Title)
			}
		}
	}
	if n == 0 {
		t.Skip("no pages read")
	}
	acc, fp := float64(right)/float64(n), float64(relevant)/float64(n)
	t.Logf("%d news pages: language %.3f (misses %v), judged incident write-ups %.3f, drafted by a crawl %.3f", n, acc, wrong, fp, float64(drafted)/float64(n))
	if acc < 0.95 {
		t.Errorf("language accuracy %.3f below 0.95", acc)
	}
	if fp > 0.1 {
		t.Errorf("%.3f of news pages judged incident write-ups (limit 0.1)", fp)
	}
}

// TestArticlePages runs the article-extraction benchmark's pages (news and
// blog articles, not incident write-ups) through relevance.
func TestArticlePages(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "bench", "aeb", "html", "*.html.gz"))
	if len(files) == 0 {
		t.Skip("aeb bench absent")
	}
	c := testClassifier()
	n, relevant, drafted := 0, 0, 0
	for _, f := range files {
		body, err := gunzip(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := extract.Extract(body, extract.Options{Format: extract.FormatHTML})
		if err != nil {
			continue
		}
		cs := c.Classify(doc)
		if cs.Language == "und" {
			continue
		}
		n++
		if cs.Relevance.Band != BandNotIncident {
			drafted++
		}
		if cs.Relevance.IsPostmortem {
			relevant++
			if testing.Verbose() {
				t.Logf("relevant %.2f: %s %q", cs.Relevance.Score, filepath.Base(f), doc.Title)
			}
		}
	}
	fp := float64(relevant) / float64(max(n, 1))
	t.Logf("%d article pages in en/ru/zh: judged incident write-ups %.3f, drafted by a crawl %.3f", n, fp, float64(drafted)/float64(max(n, 1)))
	if fp > 0.1 {
		t.Errorf("%.3f of articles judged incident write-ups (limit 0.1)", fp)
	}
}

func gunzip(path string) ([]byte, error) {
	f, err := os.Open(path)
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
