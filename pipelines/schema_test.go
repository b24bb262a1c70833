package pipelines

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/extract"
	"github.com/casebook/casebook/internal/casecheck"
)

// TestCorpusDraftsMatchSchema drafts every corpus document the way
// `casebook extract` does and holds each record to case.schema.json (no
// null list or map anywhere: strict consumers of the export reject those).
func TestCorpusDraftsMatchSchema(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "corpus")
	var docs []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".txt")) {
			docs = append(docs, p)
		}
		return nil
	})
	if len(docs) == 0 {
		t.Skip("no ../shared/corpus")
	}
	st := &ClassifyStage{Classifier: classify.New(classify.Config{})}
	for _, p := range docs {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		page := PageRef{SHA256: hex.EncodeToString(sum[:])}
		doc, err := (&ExtractStage{}).Process(context.Background(), ExtractInput{Page: page, Body: raw, Format: extract.SniffFormat(filepath.Base(p), "", raw)})
		if _, skipped := casebook.AsSkip(err); skipped {
			continue
		} else if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		c, _ := st.Draft(doc, page)
		c.ID, c.Status = "draft-"+page.SHA256[:12], casebook.StatusDraft
		c.CreatedAt, c.UpdatedAt = casebook.Now(), casebook.Now()
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		casecheck.Case(t, p, out)
		// A reviewer must be able to save a draft as drafted: the edit limits
		// and checks of the API hold for the extractor's own output (except
		// that a draft without a title needs the reviewer to give one).
		var fe *casebook.FieldError
		if err := casebook.ValidateEdit(c); err != nil && !(c.Title == "" && errors.As(err, &fe) && fe.Field == "title") {
			t.Errorf("%s: the draft as drafted fails the edit checks: %v", p, err)
		}
	}
}
