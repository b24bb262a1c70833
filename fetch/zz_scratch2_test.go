package fetch

import (
	"bufio"
	"os"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

func TestScratch2(t *testing.T) {
	dir := "../../shared/bench/langid/lingua-testdata/"
	for _, kind := range []string{"sentences", "word-pairs"} {
		for _, c := range []struct {
			lang string
			enc  encoding.Encoding
			want string
		}{
			{"ru", charmap.Windows1251, "windows-1251"}, {"ru", charmap.KOI8R, "koi8-r"}, {"uk", charmap.Windows1251, "windows-1251"},
			{"zh", simplifiedchinese.GBK, "gb18030"}, {"zh", traditionalchinese.Big5, "big5"}, {"en", charmap.Windows1252, "windows-1252"},
		} {
			f, err := os.Open(dir + kind + "/" + c.lang + ".txt")
			if err != nil {
				t.Skip(err)
			}
			sc := bufio.NewScanner(f)
			n, ok := 0, 0
			wrong := map[string]int{}
			for sc.Scan() {
				e, err := c.enc.NewEncoder().Bytes(sc.Bytes())
				if err != nil {
					continue
				}
				hi := false
				for _, b := range e {
					if b >= 0x80 {
						hi = true
					}
				}
				if !hi {
					continue
				}
				n++
				got, _ := DetectCharset(e)
				if got == c.want {
					ok++
				} else {
					wrong[got]++
				}
			}
			f.Close()
			t.Logf("%s %s %s: %d/%d = %.3f %v", kind, c.lang, c.want, ok, n, float64(ok)/float64(n), wrong)
		}
	}
}
