package peers_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/casebook/casebook/extract/evalcontent"
	"github.com/casebook/casebook/extract/evalcontent/peers"
)

var (
	benchOnce  sync.Once
	benchPages []evalcontent.Page
	benchErr   error
)

func loadBenchPages(b *testing.B) []evalcontent.Page {
	shared := sharedDir(b)
	benchOnce.Do(func() {
		benchPages, benchErr = evalcontent.Load(evalcontent.Config{AEBDir: filepath.Join(shared, "aeb"), DanielDir: filepath.Join(shared, "daniel")})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPages
}

// BenchmarkExtractors compares casebook with its peers page for page; one
// op is one page, taken in turn from the AEB and DAnIEL sets.
func BenchmarkExtractors(b *testing.B) {
	pages := loadBenchPages(b)
	for _, ex := range peers.All() {
		b.Run(ex.Name, func(b *testing.B) {
			b.ReportAllocs()
			var bytes int64
			for i := 0; b.Loop(); i++ {
				p := &pages[i%len(pages)]
				bytes += int64(len(p.HTML))
				if _, err := evalcontent.Safe(ex.Fn, p.HTML, p.URL); err != nil {
					b.Logf("%s: %v", p.ID, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/page")
		})
	}
}
