package extract

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestDebugPage prints the top candidate containers of the page named by
// CASEBOOK_DEBUG_PAGE (a developer aid; skipped otherwise).
func TestDebugPage(t *testing.T) {
	name := os.Getenv("CASEBOOK_DEBUG_PAGE")
	if name == "" {
		t.Skip("set CASEBOOK_DEBUG_PAGE")
	}
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ = io.ReadAll(zr)
	}
	root, _ := html.Parse(bytes.NewReader(raw))
	p := newPage()
	p.collect(root)
	best := p.choose()
	idx := make([]int, len(p.els))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return p.els[idx[a]].score > p.els[idx[b]].score })
	desc := func(i int) string {
		var parts []string
		for j := i; j >= 0 && len(parts) < 5; j = p.els[j].parent {
			n := p.els[j].node
			parts = append(parts, fmt.Sprintf("%s.%s", n.Data, names(n)))
		}
		return strings.Join(parts, " < ")
	}
	fmt.Printf("best %d %s score %.0f drop %v\n", best, desc(max(best, 0)), p.els[max(best, 0)].score, p.els[max(best, 0)].drop)
	for _, i := range idx[:min(12, len(idx))] {
		fmt.Printf("%5d %8.0f bonus %.1f drop %-5v blocks %d %s\n", i, p.els[i].score, p.els[i].bonus, p.els[i].drop, p.els[i].end-p.els[i].blocks, desc(i))
	}
	if e := os.Getenv("CASEBOOK_DEBUG_EL"); e != "" {
		var i int
		fmt.Sscan(e, &i)
		for j := i; j >= 0; j = p.els[j].parent {
			fmt.Printf("  %d %s.%q drop %v score %.0f\n", j, p.els[j].node.Data, names(p.els[j].node), p.els[j].drop, p.els[j].score)
		}
	}
	if os.Getenv("CASEBOOK_DEBUG_BLOCKS") != "" {
		for _, b := range p.blocks {
			fmt.Printf("%6.0f %v len %d links %d el %d %q\n", b.value, p.els[b.el].drop, b.len, b.links, b.el, b.text[:min(len(b.text), 80)])
		}
	}
}
