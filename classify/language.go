package classify

import (
	"strings"

	"github.com/casebook/casebook/extract"
	"github.com/pemistahl/lingua-go"
)

// LanguageDetector decides en, ru, zh or und from a document's prose.
type LanguageDetector struct {
	det lingua.LanguageDetector
}

// NewLanguageDetector loads the models it needs.
func NewLanguageDetector() *LanguageDetector {
	det := lingua.NewLanguageDetectorBuilder().
		FromLanguages(lingua.English, lingua.Russian, lingua.Chinese).
		Build()
	return &LanguageDetector{det: det}
}

// Detect returns the language code of doc's prose.
func (l *LanguageDetector) Detect(doc *extract.Document) string {
	var sb strings.Builder
	for _, b := range doc.Blocks() {
		if b.Kind == extract.Code {
			continue
		}
		sb.WriteString(b.Text)
		sb.WriteByte('\n')
		if sb.Len() > 20000 {
			break
		}
	}
	lang, ok := l.det.DetectLanguageOf(sb.String())
	if !ok {
		return "und"
	}
	switch lang {
	case lingua.English:
		return "en"
	case lingua.Russian:
		return "ru"
	case lingua.Chinese:
		return "zh"
	}
	return "und"
}
