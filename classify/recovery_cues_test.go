package classify

import "testing"

// A live timeline tells its fix as it happens ("we're rebuilding the
// servers") and its end as the service working again.
func TestFixUnderwayAndWorkingAgain(t *testing.T) {
	tests := []struct {
		s   string
		min float64
	}{
		{"[08:18 utc] we're rebuilding the database servers on a new host.", 1},
		{"we are reverting the config change on all nodes.", 1},
		{"the queue workers are operational again.", 3},
		{"by 14:00 the checkout service was operational again.", 3},
		{"к обеду сайт снова работает.", 3},
		{"после перезапуска всё заработало.", 3},
		{"晚上九点服务重新上线。", 3},
		{"数据库恢复运行，订单正常写入。", 3},
	}
	for _, tc := range tests {
		if sc, _ := sentenceScores(tc.s); sc[fRemediation] < tc.min {
			t.Errorf("sentenceScores(%q)[remediation] = %v, want >= %v", tc.s, sc[fRemediation], tc.min)
		}
	}
}
