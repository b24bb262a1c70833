package sinks

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casebook/casebook"
)

var (
	filledOnce sync.Once
	filledRaw  []byte
)

// filledStore writes a store with some drafts (once per test binary) and
// returns the path of a fresh copy of it.
func filledStore(t *testing.T) string {
	t.Helper()
	filledOnce.Do(func() {
		path := filepath.Join(t.TempDir(), "casebook.db")
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var cases []*casebook.Case
		for i := 0; i < 300; i++ {
			c := draftCase(fmt.Sprintf("Outage %d of the queue", i))
			c.Summary = strings.Repeat(fmt.Sprintf("The broker %d ran out of disk and stopped. ", i), 20)
			c.Sources = []casebook.Source{{URL: fmt.Sprintf("https://blog.example/%d", i)}}
			cases = append(cases, c)
		}
		if _, err := s.Import(cases, "test"); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		filledRaw, _ = os.ReadFile(path)
	})
	path := filepath.Join(t.TempDir(), "casebook.db")
	if err := os.WriteFile(path, filledRaw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// garble overwrites the file from byte off to the end with random bytes.
func garble(t *testing.T, path string, off int64) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, st.Size()-off)
	rand.New(rand.NewSource(1)).Read(buf)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(buf, off); err != nil {
		t.Fatal(err)
	}
}

// A damaged file is refused at open with one line naming it and the cure,
// never served, never replaced by a new empty store, and never a crash.
func TestDamagedStoreIsRefused(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
		detail string
	}{
		{"zero length", func(t *testing.T, p string) { os.Truncate(p, 0) }, "empty"},
		{"truncated to half", func(t *testing.T, p string) {
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()/2)
		}, "truncated"},
		{"truncated inside the header", func(t *testing.T, p string) { os.Truncate(p, 100) }, "truncated"},
		{"truncated inside the first page", func(t *testing.T, p string) { os.Truncate(p, 40) }, "no valid bbolt header"},
		{"garbage header", func(t *testing.T, p string) { garble(t, p, 0) }, "no valid bbolt header"},
		{"garbage from the third page on", func(t *testing.T, p string) { garble(t, p, 2*4096) }, "freelist"},
		{"garbage in data pages only", func(t *testing.T, p string) {
			raw, _ := os.ReadFile(p)
			m, _ := readMeta(raw)
			off := int64(m.pgid/2) * 4096
			if m.freelist >= m.pgid/2 && m.freelist < m.pgid/2+4 {
				off += 8 * 4096
			}
			junk := make([]byte, 4*4096)
			rand.New(rand.NewSource(2)).Read(junk)
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteAt(junk, off)
			f.Close()
		}, "page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filledStore(t)
			tt.damage(t, path)
			before, _ := os.Stat(path)
			s, err := Open(path, Options{Verify: true})
			if err == nil {
				s.Close()
				t.Fatal("a damaged store opened")
			}
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("err = %v, want ErrDamaged", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "store "+path+" is damaged: ") || !strings.HasSuffix(msg, "; restore from `casebook backup` or move it away") ||
				strings.Contains(msg, "\n") || !strings.Contains(msg, tt.detail) {
				t.Fatalf("message %q", msg)
			}
			after, _ := os.Stat(path)
			if after.Size() != before.Size() {
				t.Fatalf("file size %d -> %d: the damaged file was written to", before.Size(), after.Size())
			}
			if _, err := CheckFile(path, time.Minute); !errors.Is(err, ErrDamaged) {
				t.Fatalf("CheckFile = %v, want ErrDamaged", err)
			}
		})
	}
}

// A sound store passes both checks; a missing one is a new store.
func TestSoundStorePassesCheck(t *testing.T) {
	path := filledStore(t)
	pages, err := CheckFile(path, time.Minute)
	if err != nil || pages < 10 {
		t.Fatalf("CheckFile = %d pages, %v", pages, err)
	}
	s, err := Open(path, Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := CheckFile(filepath.Join(t.TempDir(), "none.db"), time.Minute); err == nil {
		t.Fatal("CheckFile of a missing file passed")
	}
}

// Damage done after the open (the file truncated or overwritten under a
// running server, or a page the open did not read) is found on first
// touch: the request gets ErrDamaged, the process lives on (a truncated
// mapping faults with SIGBUS, which is turned into an error here).
func TestDamageFoundOnFirstTouch(t *testing.T) {
	for _, tt := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"truncated", func(t *testing.T, p string) { os.Truncate(p, 3*4096) }},
		{"overwritten", func(t *testing.T, p string) { garble(t, p, 3*4096) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filledStore(t)
			s, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tt.damage(t, path)
			var hit error
			for i := 0; i < 300 && hit == nil; i++ {
				if _, _, err := s.GetCase(fmt.Sprintf("CB-%04d", i+1)); err != nil {
					hit = err
				}
			}
			if !errors.Is(hit, ErrDamaged) {
				t.Fatalf("reads of a damaged store: %v, want ErrDamaged", hit)
			}
		})
	}
}
