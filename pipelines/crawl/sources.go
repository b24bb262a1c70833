package crawl

import (
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/casebook/casebook/fetch"
	"gopkg.in/yaml.v3"
)

// Source kinds.
const (
	KindFeed    = "feed"    // RSS, Atom or JSON Feed (or a page linking to one)
	KindSitemap = "sitemap" // XML or text sitemap, sitemap index, or a site whose robots.txt names one
	KindPage    = "page"    // a listing page; Link picks the post links
)

// DefaultInterval is a source's crawl interval when the file gives none.
const DefaultInterval = 6 * time.Hour

// MinInterval keeps a sources file from hammering a site.
const MinInterval = time.Minute

// Source is one entry of the sources file.
type Source struct {
	Name         string        `json:"name"`
	Kind         string        `json:"kind"`
	URL          string        `json:"url"`
	Interval     time.Duration `json:"interval"`
	Organization string        `json:"organization,omitempty"`
	Language     string        `json:"language,omitempty"`
	Include      []string      `json:"include,omitempty"`
	Exclude      []string      `json:"exclude,omitempty"`
	Link         string        `json:"link,omitempty"`

	filter *fetch.URLFilter
}

//go:embed sources.default.yaml
var defaultSourcesYAML []byte

// DefaultSources are the built-in sources: engineering blogs that publish
// incident write-ups in English, Russian and Chinese.
func DefaultSources() []Source {
	srcs, err := ParseSources(defaultSourcesYAML, "sources.default.yaml")
	if err != nil {
		panic("built-in sources file is invalid: " + err.Error()) // TestDefaultSources guards this
	}
	return srcs
}

// LoadSources reads and validates a sources file.
func LoadSources(path string) ([]Source, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sources file: %w", err)
	}
	return ParseSources(raw, path)
}

var sourceNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

var sourceFields = map[string]bool{
	"name": true, "kind": true, "url": true, "interval": true, "organization": true,
	"language": true, "include": true, "exclude": true, "link": true,
}

// ParseSources parses a sources file: a top-level "sources:" list. Every
// problem is reported with its line, all at once.
func ParseSources(data []byte, file string) ([]Source, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty file; want a top-level \"sources:\" list", file)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: want a mapping with a \"sources:\" list", file, root.Line)
	}
	var list *yaml.Node
	var errs []error
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Value == "sources" {
			list = root.Content[i+1]
		} else {
			errs = append(errs, fmt.Errorf("%s:%d: unknown top-level key %q (want \"sources\")", file, k.Line, k.Value))
		}
	}
	if list == nil {
		return nil, errors.Join(append(errs, fmt.Errorf("%s:%d: no \"sources:\" list", file, root.Line))...)
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: \"sources\" must be a list", file, list.Line)
	}
	var out []Source
	names := map[string]int{}
	for i, item := range list.Content {
		at := func(n *yaml.Node, format string, a ...any) {
			errs = append(errs, fmt.Errorf("%s:%d: sources[%d]: %s", file, n.Line, i, fmt.Sprintf(format, a...)))
		}
		if item.Kind != yaml.MappingNode {
			at(item, "want a mapping with name, kind and url")
			continue
		}
		fields := map[string]*yaml.Node{}
		for j := 0; j+1 < len(item.Content); j += 2 {
			k := item.Content[j]
			if !sourceFields[k.Value] {
				at(k, "unknown field %q", k.Value)
				continue
			}
			if _, dup := fields[k.Value]; dup {
				at(k, "field %q given twice", k.Value)
			}
			fields[k.Value] = item.Content[j+1]
		}
		str := func(key string) string {
			n := fields[key]
			if n == nil {
				return ""
			}
			if n.Kind != yaml.ScalarNode {
				at(n, "%s must be a string", key)
				return ""
			}
			return strings.TrimSpace(n.Value)
		}
		list := func(key string) []string {
			n := fields[key]
			if n == nil {
				return nil
			}
			if n.Kind == yaml.ScalarNode {
				return []string{n.Value}
			}
			var vs []string
			if err := n.Decode(&vs); err != nil {
				at(n, "%s must be a list of strings", key)
			}
			return vs
		}
		s := Source{Name: str("name"), Kind: str("kind"), URL: str("url"), Organization: str("organization"),
			Language: str("language"), Link: str("link"), Include: list("include"), Exclude: list("exclude")}
		if iv := str("interval"); iv != "" {
			d, err := time.ParseDuration(iv)
			switch {
			case err != nil:
				at(fields["interval"], "interval %q: want a Go duration such as 6h or 90m", iv)
			case d < MinInterval:
				at(fields["interval"], "interval %s is below the minimum of %s", d, MinInterval)
			}
			s.Interval = d
		}
		if prev, dup := names[s.Name]; dup && s.Name != "" {
			at(item, "name %q already used by sources[%d]", s.Name, prev)
		}
		names[s.Name] = i
		if err := s.validate(); err != nil {
			at(item, "%v", err)
			continue
		}
		out = append(out, s)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// validate checks a source, fills defaults and compiles its filter.
func (s *Source) validate() error {
	var errs []string
	if !sourceNameRE.MatchString(s.Name) {
		errs = append(errs, fmt.Sprintf("name %q: want 1-64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit", s.Name))
	}
	switch s.Kind {
	case KindFeed, KindSitemap, KindPage:
	case "":
		errs = append(errs, "kind is required (feed, sitemap or page)")
	default:
		errs = append(errs, fmt.Sprintf("kind %q: want feed, sitemap or page", s.Kind))
	}
	if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Sprintf("url %q: want an absolute http or https URL", s.URL))
	}
	if s.Interval == 0 {
		s.Interval = DefaultInterval
	}
	switch s.Language {
	case "", "en", "ru", "zh":
	default:
		errs = append(errs, fmt.Sprintf("language %q: want en, ru or zh", s.Language))
	}
	f, err := fetch.NewURLFilter(s.Include, s.Exclude)
	if err != nil {
		errs = append(errs, err.Error())
	}
	s.filter = f
	if s.Link != "" {
		if s.Kind != KindPage {
			errs = append(errs, "link applies to kind page only")
		} else if _, err := fetch.ParseListing([]byte("<html></html>"), "http://example.com/", s.Link); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// Match applies the source's include and exclude patterns.
func (s *Source) Match(u string) bool {
	if s.filter == nil {
		f, err := fetch.NewURLFilter(s.Include, s.Exclude)
		if err != nil {
			return false
		}
		s.filter = f
	}
	return s.filter.Match(u)
}
