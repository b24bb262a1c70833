// Package extract turns a fetched page (HTML, Markdown or plain text) into a
// Document: metadata plus the article's main text, split into sections and
// typed blocks with byte offsets into that text.
package extract

// Formats a document can be read as.
const (
	FormatHTML     = "html"
	FormatMarkdown = "markdown"
	FormatText     = "text"
)

// BlockKind types a block of the article.
type BlockKind string

// Block kinds.
const (
	Paragraph BlockKind = "paragraph"
	ListItem  BlockKind = "list_item"
	Code      BlockKind = "code"
	Table     BlockKind = "table"
	Quote     BlockKind = "quote"
	Heading   BlockKind = "heading"
)

// Block is one unit of article text. Start and End are byte offsets into
// Document.Text so evidence spans point at real text.
type Block struct {
	Kind  BlockKind `json:"kind"`
	Text  string    `json:"text"`
	Start int       `json:"start"`
	End   int       `json:"end"`
	// Lang is a code block's language as the page marks it ("java" from a
	// "```java" fence or class="language-java"), lower case; "" when unmarked.
	Lang string `json:"lang,omitempty"`
}

// Section is a heading and the blocks under it. The blocks before the first
// heading form a section with an empty heading and level 0.
type Section struct {
	Heading string  `json:"heading"`
	Level   int     `json:"level"`
	Start   int     `json:"start"` // offset of the heading text (or first block)
	Blocks  []Block `json:"blocks"`
}

// Document is the extracted article.
type Document struct {
	URL          string    `json:"url"`
	CanonicalURL string    `json:"canonical_url"`
	Format       string    `json:"format"`
	Title        string    `json:"title"`
	Site         string    `json:"site"`
	Organization string    `json:"organization"`
	Published    string    `json:"published"` // YYYY-MM-DD or ""
	Author       string    `json:"author"`
	DeclaredLang string    `json:"declared_lang"` // a hint only: pages often declare the wrong one
	Tags         []string  `json:"tags"`          // front matter tags and categories, as written
	Text         string    `json:"text"`          // main text: every block, including headings, joined by "\n"
	Sections     []Section `json:"sections"`
}

// Options says what is known about the input besides its bytes.
type Options struct {
	URL         string // the page's address, for site rules, organisation and canonical URL
	Format      string // FormatHTML, FormatMarkdown, FormatText, or "" to sniff
	ContentType string // the HTTP Content-Type, if any
	// Name is the file name a document was read from, if any: a date in it
	// ("2021-05-26-outage.md") is the post's date when nothing else gives one.
	Name string
	// IncludeHeadline puts the article's headline, when the page has it as a
	// heading outside the article body, first in Text as a level-1 heading.
	// Title holds it either way.
	IncludeHeadline bool
}

// Blocks returns every block of the document in order, headings included.
func (d *Document) Blocks() []Block {
	var out []Block
	for _, s := range d.Sections {
		if s.Heading != "" {
			out = append(out, Block{Kind: Heading, Text: s.Heading, Start: s.Start, End: s.Start + len(s.Heading)})
		}
		out = append(out, s.Blocks...)
	}
	return out
}

// MainText returns the article text, one block per line.
func (d *Document) MainText() string { return d.Text }
