package sinks

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// Change is one entry of a case's history: who did what, when.
type Change struct {
	At     string   `json:"at"`
	By     string   `json:"by"`
	Action string   `json:"action"` // drafted, edited, approved, rejected, merged, source-added
	Note   string   `json:"note,omitempty"`
	Fields []string `json:"fields,omitempty"` // the fields a reviewer changed
	From   string   `json:"from,omitempty"`   // previous id, when the id changed
	// Values holds each changed field's JSON before and after a reviewer's
	// edit, so the history shows what changed, not only which field.
	Values map[string]FieldChange `json:"values,omitempty"`
}

// FieldChange is one field's value before and after an edit.
type FieldChange struct {
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
}

func addHistory(tx *bolt.Tx, caseID string, ch Change) error {
	hb, err := tx.Bucket(bHistory).CreateBucketIfNotExists([]byte(caseID))
	if err != nil {
		return err
	}
	seq, err := hb.NextSequence()
	if err != nil {
		return err
	}
	return putJSON(hb, seqKey(seq), ch)
}

// History returns a case's changes, oldest first, including those recorded
// under the ids it had before (a draft's id before approval).
func (s *Store) History(id string) ([]Change, error) {
	out := []Change{}
	err := s.db.View(func(tx *bolt.Tx) error {
		cur := resolveAlias(tx, id)
		if tx.Bucket(bCases).Get([]byte(cur)) == nil {
			return fmt.Errorf("case %s: %w", id, ErrNotFound)
		}
		// Earlier ids (the draft, drafts merged in) come first.
		ids := append(earlierIDs(tx, cur), cur)
		for _, cid := range ids {
			hb := tx.Bucket(bHistory).Bucket([]byte(cid))
			if hb == nil {
				continue
			}
			if err := hb.ForEach(func(k, v []byte) error {
				var ch Change
				if err := jsonUnmarshal(v, &ch); err != nil {
					return err
				}
				out = append(out, ch)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	// Each id's changes are in order; across ids (a draft merged in later)
	// the timestamps decide. Stable, so changes in one second keep theirs.
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out, err
}

// diffFields names the top-level JSON fields that differ between two cases,
// ignoring the bookkeeping ones.
func diffFields(a, b *casebook.Case) []string {
	var out []string
	va, vb := reflect.ValueOf(*a), reflect.ValueOf(*b)
	t := va.Type()
	for i := 0; i < t.NumField(); i++ {
		name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		switch name {
		case "id", "status", "review", "created_at", "updated_at", "related":
			continue
		}
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, name)
		}
	}
	return out
}

func encodeCursor(k []byte) string {
	if len(k) != 8 {
		return ""
	}
	return strconv.FormatUint(binary.BigEndian.Uint64(k), 10)
}

func decodeCursor(c string) (uint64, error) {
	n, err := strconv.ParseUint(c, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad cursor %q: %w", c, ErrInvalid)
	}
	return n, nil
}
