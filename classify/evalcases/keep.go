package evalcases

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/casebook/casebook/classify"
)

// Choosing each field's keep threshold (classify.FieldModel.Keep): a field
// whose best sentence the model gives less than it is left empty and offered
// to the reviewer. The threshold is chosen by leave-one-source-out inside
// the fit: each source of the training set is routed by a model fitted
// without it, and per field the threshold that scores best on those held-out
// documents is taken, a field of a gold that is empty counting 1 when left
// empty, a field the gold fills its token F1 (0 when left empty).

// keepGrid are the thresholds tried.
var keepGrid = func() []float64 {
	var g []float64
	for k := 0; k <= 10; k++ {
		g = append(g, math.Round(float64(k)*5)/100)
	}
	return g
}()

// fieldOutcome is one document's field as the model drafts it before the
// keep threshold: its best sentence's probability, the token F1 against the
// gold, and whether the gold is empty.
type fieldOutcome struct {
	routed    bool // some sentence went to the field
	best, f1  float64
	goldEmpty bool
	src       int // which held-out source
}

// replay routes d's sentences by m as Classify does (classify.FieldModel.Route,
// the field caps) and scores each field the gold annotates.
func replay(m *classify.FieldModel, d *docSamples, src int, out [][]fieldOutcome) {
	names := classify.ModelFields()
	type routed struct {
		i int
		p float64
	}
	by := map[string][]routed{}
	for i, s := range d.ss {
		x := s.x
		if s.draft != nil {
			x = s.draft
		}
		if f, p := m.Route(s.hand, x); f != "" {
			by[f] = append(by[f], routed{i, p})
		}
	}
	for fi, name := range names {
		if !d.ann[fi] {
			continue
		}
		o := fieldOutcome{goldEmpty: len(d.gold[fi]) == 0, src: src}
		rs := by[name]
		if c := classify.FieldCap(name); len(rs) > c {
			slices.SortStableFunc(rs, func(a, b routed) int { return cmp.Compare(b.p, a.p) })
			rs = rs[:c]
		}
		var toks []string
		for _, r := range rs {
			o.routed = true
			o.best = max(o.best, r.p)
			toks = append(toks, d.ss[r.i].toks...)
		}
		o.f1 = tokensF1(d.gold[fi], toks)
		out[fi] = append(out[fi], o)
	}
}

// tokensF1 is TokenF1 on tokens.
func tokensF1(g, p []string) float64 {
	if len(g) == 0 || len(p) == 0 {
		if len(g) == 0 && len(p) == 0 {
			return 1
		}
		return 0
	}
	shared := clippedOverlap(g, p)
	if shared == 0 {
		return 0
	}
	prec := float64(shared) / float64(len(p))
	rec := float64(shared) / float64(len(g))
	return 2 * prec * rec / (prec + rec)
}

// keepScore is the outcomes' score with threshold k.
func keepScore(os []fieldOutcome, k float64) float64 {
	s := 0.0
	for _, o := range os {
		switch {
		case o.routed && o.best >= k:
			s += o.f1
		case o.goldEmpty:
			s++
		}
	}
	return s
}

// chooseKeep picks, per field, among the grid thresholds that score best on
// the outcomes the one nearest classify's default (0.3, chosen by hand):
// where nothing on the held-out sources tells two thresholds apart, the
// default stands, so a field is emptied as readily as before wherever no
// source shows the threshold costs more than it saves.
func chooseKeep(outs [][]fieldOutcome) map[string]float64 {
	keep := map[string]float64{}
	for fi, name := range classify.ModelFields() {
		scores := make([]float64, len(keepGrid))
		top := 0.0
		for i, k := range keepGrid {
			scores[i] = keepScore(outs[fi], k)
			top = max(top, scores[i])
		}
		bi := -1
		for i, k := range keepGrid {
			if scores[i] >= top-1e-9 && (bi < 0 || math.Abs(k-classify.DefaultKeep) < math.Abs(keepGrid[bi]-classify.DefaultKeep)-1e-9) {
				bi = i
			}
		}
		keep[name] = keepGrid[bi]
	}
	return keep
}

// innerKeep chooses the keep thresholds on train by leave-one-source-out.
// With fewer than two sources it returns nil (classify's default).
func (fc *featureCache) innerKeep(train []Example, lambda float64) (map[string]float64, error) {
	bySrc := map[string][]int{}
	for i, ex := range train {
		bySrc[ex.Source] = append(bySrc[ex.Source], i)
	}
	if len(bySrc) < 2 {
		return nil, nil
	}
	srcs := make([]string, 0, len(bySrc))
	for s := range bySrc {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	// the folds run side by side; their outcomes join in source order
	nf := len(classify.ModelFields())
	per := make([][][]fieldOutcome, len(srcs))
	errs := make([]error, len(srcs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for si, src := range srcs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var in []Example
			for _, ex := range train {
				if ex.Source != src {
					in = append(in, ex)
				}
			}
			m, err := fc.fit(in, lambda)
			if err != nil {
				errs[si] = err
				return
			}
			per[si] = make([][]fieldOutcome, nf)
			for _, i := range bySrc[src] {
				replay(m, fc.doc(&train[i]), si, per[si])
			}
		}()
	}
	wg.Wait()
	outs := make([][]fieldOutcome, nf)
	for si := range srcs {
		if errs[si] != nil {
			return nil, errs[si]
		}
		for fi := range outs {
			outs[fi] = append(outs[fi], per[si][fi]...)
		}
	}
	return chooseKeep(outs), nil
}
