package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casebook/casebook/sinks"
)

// A damaged casebook.db stops `casebook serve` at once with one line naming
// the file and the cure, exit 1, and leaves admin.token as it was;
// `casebook store check` says the same, and passes a sound store.
func TestServeRefusesDamagedStore(t *testing.T) {
	sound := filepath.Join(t.TempDir(), "casebook.db")
	s, err := sinks.Open(sound, sinks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddToken("admin", sinks.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw, _ := os.ReadFile(sound)

	if r := runBin(t, "", nil, "store", "check", "--file", sound); r.code != 0 || !strings.Contains(r.stdout, "is sound") {
		t.Fatalf("store check of a sound store: %+v", r)
	}
	for _, tt := range []struct {
		name   string
		damage func(p string)
	}{
		{"zero length", func(p string) { os.WriteFile(p, nil, 0o600) }},
		{"truncated", func(p string) { os.WriteFile(p, raw[:len(raw)/2], 0o600) }},
		{"garbage", func(p string) {
			g := append([]byte(nil), raw...)
			for i := 2 * 4096; i < len(g); i++ {
				g[i] = byte(i*7 + 3)
			}
			os.WriteFile(p, g, 0o600)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			db := filepath.Join(data, "casebook.db")
			tt.damage(db)
			tokPath := filepath.Join(data, "admin.token")
			os.WriteFile(tokPath, []byte("cbk_the_old_token\n"), 0o600)
			r := runBin(t, "", nil, "serve", "--data", data, "--http", "127.0.0.1:0", "--nats-listen", "", "--sources", "none")
			want := "casebook serve: store " + db + " is damaged: "
			lines := strings.Split(strings.TrimSpace(r.err), "\n")
			if r.code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], want) ||
				!strings.HasSuffix(lines[0], "; restore from `casebook backup` or move it away") {
				t.Fatalf("serve: exit %d, stderr %q; want 1 and one line %q…", r.code, r.err, want)
			}
			if tok, _ := os.ReadFile(tokPath); string(tok) != "cbk_the_old_token\n" {
				t.Fatalf("admin.token now %q", tok)
			}
			if after, _ := os.ReadFile(db); tt.name == "zero length" && len(after) != 0 {
				t.Fatalf("the empty file became a %d-byte store", len(after))
			}
			r = runBin(t, "", nil, "store", "check", "--data", data)
			if r.code != 1 || !strings.HasPrefix(r.err, "casebook store: store "+db+" is damaged: ") {
				t.Fatalf("store check: %+v", r)
			}
		})
	}
}
