// Package evalrelevance measures the relevance gate ("is this post an
// incident write-up?") on labelled blog posts, in-sample and
// leave-one-source-out, and fits the gate's logistic-regression weights.
//
// Data: a relevance directory (labels.tsv with path, lang, label columns;
// the source is the second path component, en/rust/x.md -> rust) and,
// optionally, the gold directory (each *.json has expect.relevance and
// expect.language; the source is the folder under corpus/). Source names are
// normalised ("en-rust-blog" and "rust" are one blog) so one blog is held
// out as a whole.
package evalrelevance

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/extract"
)

// Doc is one labelled post with its features.
type Doc struct {
	Path     string // as named in labels.tsv or the gold file's doc path
	Lang     string
	Source   string // normalised blog name
	Label    bool   // an incident write-up
	Features []float64
	V1       float64 // the replaced hand-tuned gate's score
	Page     bool    // a news or article page (LoadPages)
	Set      string  // the labelled set it came from: a relevance set's folder name, or goldSet
}

// goldSet is the Set of the gold set's posts.
const goldSet = "gold"

// Load reads the relevance set in dir (may be "") and the gold set in
// goldDir (may be ""). A post found in both counts once.
func Load(dir, goldDir string) ([]Doc, error) {
	var dirs []string
	if dir != "" {
		dirs = append(dirs, dir)
	}
	return LoadSets(dirs, goldDir)
}

// LoadSets reads every relevance set in dirs (each laid out as
// ../shared/eval/relevance: labels.tsv and the posts beside it) and the gold
// set in goldDir (may be ""). A post found twice counts once. A post of a
// set after the first is named with the set's folder first
// ("relevance-unseen/en/tidewater/x.md"), so paths stay unique.
func LoadSets(dirs []string, goldDir string) ([]Doc, error) {
	dir := strings.Join(dirs, ", ")
	var docs []Doc
	var bodies [][]byte
	seen := map[[32]byte]bool{}
	add := func(d Doc, body []byte) error {
		h := sha256.Sum256(body)
		if seen[h] {
			return nil
		}
		seen[h] = true
		docs = append(docs, d)
		bodies = append(bodies, body)
		return nil
	}
	for k, set := range dirs {
		rows, err := readLabels(filepath.Join(set, "labels.tsv"))
		if err != nil {
			return nil, err
		}
		name := filepath.Base(filepath.Clean(set))
		for _, r := range rows {
			body, err := os.ReadFile(filepath.Join(set, r.Path))
			if err != nil {
				return nil, fmt.Errorf("eval relevance: %w", err)
			}
			r.Set = name
			if k > 0 {
				r.Path = name + "/" + r.Path
			}
			if err := add(r, body); err != nil {
				return nil, err
			}
		}
	}
	if goldDir != "" {
		files, err := filepath.Glob(filepath.Join(goldDir, "*.json"))
		if err != nil {
			return nil, fmt.Errorf("eval relevance: %w", err)
		}
		sort.Strings(files)
		shared := filepath.Join(goldDir, "..", "..")
		for _, f := range files {
			d, ok, err := readGold(f)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			body, err := os.ReadFile(filepath.Join(shared, d.Path))
			if err != nil {
				return nil, fmt.Errorf("eval relevance: %s: %w", f, err)
			}
			if err := add(d, body); err != nil {
				return nil, err
			}
		}
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("eval relevance: no labelled posts in %q or %q", dir, goldDir)
	}
	err := parallel(len(docs), func(i int) error {
		d := &docs[i]
		doc, err := extract.Extract(bodies[i], extract.Options{Format: extract.SniffFormat(d.Path, "", bodies[i])})
		if err != nil {
			return fmt.Errorf("eval relevance: extract %s: %w", d.Path, err)
		}
		d.Features = classify.RelevanceFeatures(doc)
		d.V1 = classify.RelevanceV1(doc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// sorted by path, so the fit does not depend on the row order of
	// labels.tsv (floating-point sums do)
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	return docs, nil
}

// readLabels parses labels.tsv (header row: path, lang, label, ...).
func readLabels(file string) ([]Doc, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("eval relevance: %w", err)
	}
	defer f.Close()
	var out []Doc
	sc := bufio.NewScanner(f)
	col := map[string]int{}
	for line := 0; sc.Scan(); line++ {
		cells := strings.Split(sc.Text(), "\t")
		if line == 0 {
			for i, c := range cells {
				col[c] = i
			}
			for _, need := range []string{"path", "lang", "label"} {
				if _, ok := col[need]; !ok {
					return nil, fmt.Errorf("eval relevance: %s: no %q column", file, need)
				}
			}
			continue
		}
		if len(cells) <= max(col["path"], col["lang"], col["label"]) {
			continue
		}
		p := cells[col["path"]]
		parts := strings.Split(p, "/")
		if len(parts) < 3 {
			return nil, fmt.Errorf("eval relevance: %s line %d: path %q has no source folder", file, line+1, p)
		}
		out = append(out, Doc{Path: p, Lang: cells[col["lang"]], Source: NormSource(parts[1]), Label: cells[col["label"]] == "1"})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval relevance: %s: %w", file, err)
	}
	return out, nil
}

// readGold reads one gold file; ok is false when it has no relevance label.
func readGold(file string) (Doc, bool, error) {
	var g struct {
		Doc    string `json:"doc"`
		Expect struct {
			Language  string `json:"language"`
			Relevance *struct {
				IsPostmortem bool `json:"is_postmortem"`
			} `json:"relevance"`
		} `json:"expect"`
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return Doc{}, false, fmt.Errorf("eval relevance: %w", err)
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return Doc{}, false, fmt.Errorf("eval relevance: %s: %w", file, err)
	}
	if g.Expect.Relevance == nil || g.Doc == "" {
		return Doc{}, false, nil
	}
	parts := strings.Split(g.Doc, "/")
	src := parts[0]
	if len(parts) > 2 {
		src = parts[1]
	}
	return Doc{Path: g.Doc, Lang: g.Expect.Language, Source: NormSource(src), Label: g.Expect.Relevance.IsPostmortem, Set: goldSet}, true, nil
}

// NormSource names a blog the same way in both sets: "en-rust-blog",
// "zh-selfboot" -> "rust", "selfboot".
func NormSource(s string) string {
	s = strings.ToLower(s)
	for _, p := range []string{"en-", "ru-", "zh-"} {
		s = strings.TrimPrefix(s, p)
	}
	return strings.TrimSuffix(s, "-blog")
}

// LoadPages reads every other page of a benchmark of pages that are not
// incident write-ups (news, articles: ../shared/bench/daniel/html,
// ../shared/bench/aeb/html, plain or .gz) as negatives of one source. The
// other half is left for the news and article checks to stay partly unseen.
// Pages the classifier reads as another language are left out.
func LoadPages(dir, source string) ([]Doc, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return nil, fmt.Errorf("eval relevance: %w", err)
	}
	sort.Strings(files)
	cl := classify.New(classify.Config{})
	var picked []string
	for i := 0; i < len(files); i += 2 {
		picked = append(picked, files[i])
	}
	got := make([]*Doc, len(picked))
	err = parallel(len(picked), func(i int) error {
		body, err := os.ReadFile(picked[i])
		if err != nil {
			return fmt.Errorf("eval relevance: %w", err)
		}
		if strings.HasSuffix(picked[i], ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				return fmt.Errorf("eval relevance: %s: %w", picked[i], err)
			}
			body, err = io.ReadAll(zr)
			if err != nil {
				return fmt.Errorf("eval relevance: %s: %w", picked[i], err)
			}
		}
		doc, err := extract.Extract(body, extract.Options{Format: extract.FormatHTML})
		if err != nil || strings.TrimSpace(doc.Text) == "" {
			return nil
		}
		lang, _ := cl.DetectLanguage(doc)
		if lang == "und" {
			return nil
		}
		got[i] = &Doc{Path: filepath.Base(picked[i]), Lang: lang, Source: source, Features: classify.RelevanceFeatures(doc), Page: true}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var docs []Doc
	for _, d := range got {
		if d != nil {
			docs = append(docs, *d)
		}
	}
	return docs, nil
}

// parallel runs fn(0..n-1) on GOMAXPROCS goroutines and returns the first
// error by index; each fn writes only its own slot, so the result does
// not depend on the schedule.
func parallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
