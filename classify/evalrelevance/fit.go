package evalrelevance

import (
	"math"
	"sort"

	"github.com/casebook/casebook/classify"
)

// Lambda is the default L2 penalty on the standardised weights: strong, so
// a feature only weighs what several blogs agree on.
const Lambda = 10.0

// PageWeight is the weight of a news or article page against a labelled
// blog post: hundreds of them teach "not about systems" without outvoting
// the blogs' own non-incident posts.
const PageWeight = 0.1

// newtonSteps is the fixed number of Newton steps of a fit. The problem is
// convex and small, so Newton's method converges in under 15 steps; a
// fixed count (no stopping test) means the same docs give the same bits
// on every machine and every run.
const newtonSteps = 25

// Fit fits an L2-regularised logistic regression on docs by Newton's
// method (deterministic: same docs, same weights). Features are
// standardised on docs; classes are weighted to balance, so the many
// non-incident posts of one blog do not drown the incidents.
func Fit(docs []Doc, lambda float64) *classify.RelevanceModel {
	d := len(docs[0].Features)
	m := &classify.RelevanceModel{Norms: map[string]classify.RelevanceNorm{}, Weights: make([]float64, d)}
	// one standardisation for all languages: per-language ones were tried
	// and lowered the cross-source F1 (0.84/0.75 mean vs 0.84), too few
	// posts per language to estimate them
	m.Norms[""] = normOf(docs, d)
	// the classes balance by their weight, a page counting PageWeight: with
	// pages counted whole, 365 pages made every incident weigh 7.6 times a
	// blog's non-incident post and the gate drafted how-tos
	base := make([]float64, len(docs))
	total, pos := 0.0, 0.0
	for k, doc := range docs {
		base[k] = 1
		if doc.Page {
			base[k] = PageWeight
		}
		total += base[k]
		if doc.Label {
			pos += base[k]
		}
	}
	wPos, wNeg := total/(2*max(pos, 1e-9)), total/(2*max(total-pos, 1e-9))
	// z[k] = [1, standardised features]
	z := make([][]float64, len(docs))
	nm := m.Norms[""]
	for k, doc := range docs {
		z[k] = make([]float64, d+1)
		z[k][0] = 1
		for i, v := range doc.Features {
			if !classify.RelevanceCap(i) { // a cap gets no weight: its column stays 0
				z[k][i+1] = (v - nm.Mean[i]) / nm.Scale[i]
			}
		}
	}
	beta := make([]float64, d+1)
	g := make([]float64, d+1)
	h := make([][]float64, d+1)
	for i := range h {
		h[i] = make([]float64, d+1)
	}
	for iter := 0; iter < newtonSteps; iter++ {
		for i := range h {
			g[i] = 0
			clear(h[i])
		}
		for k, doc := range docs {
			s := 0.0
			for i, v := range z[k] {
				s += beta[i] * v
			}
			p := 1 / (1 + math.Exp(-s))
			y, w := 0.0, wNeg*base[k]
			if doc.Label {
				y, w = 1, wPos*base[k]
			}
			for i, vi := range z[k] {
				g[i] += w * (p - y) * vi
				c := w * p * (1 - p) * vi
				for j := i; j < len(z[k]); j++ {
					h[i][j] += c * z[k][j]
				}
			}
		}
		for i := range h { // the Hessian is symmetric: the lower half is a copy
			for j := 0; j < i; j++ {
				h[i][j] = h[j][i]
			}
		}
		for i := 1; i <= d; i++ { // the bias is not penalised
			g[i] += lambda * beta[i]
			h[i][i] += lambda
		}
		step := solve(h, g)
		for i := range beta {
			beta[i] -= step[i]
		}
	}
	m.Bias = beta[0]
	copy(m.Weights, beta[1:])
	return m
}

// normOf is the mean and standard deviation of each feature over docs.
func normOf(docs []Doc, d int) classify.RelevanceNorm {
	nm := classify.RelevanceNorm{Mean: make([]float64, d), Scale: make([]float64, d)}
	n := float64(len(docs))
	for _, doc := range docs {
		for i, v := range doc.Features {
			nm.Mean[i] += v / n
		}
	}
	for _, doc := range docs {
		for i, v := range doc.Features {
			nm.Scale[i] += (v - nm.Mean[i]) * (v - nm.Mean[i]) / n
		}
	}
	for i := range nm.Scale {
		nm.Scale[i] = math.Sqrt(nm.Scale[i])
		if nm.Scale[i] < 1e-3 {
			nm.Scale[i] = 1
		}
	}
	return nm
}

// solve solves h x = g by Gaussian elimination with partial pivoting (h is
// positive definite here: the penalty sees to that).
func solve(h [][]float64, g []float64) []float64 {
	n := len(g)
	a := make([][]float64, n)
	for i := range a {
		a[i] = append(append([]float64{}, h[i]...), g[i])
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		if math.Abs(a[c][c]) < 1e-12 {
			continue
		}
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k <= n; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := a[r][n]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * x[k]
		}
		if math.Abs(a[r][r]) > 1e-12 {
			x[r] = s / a[r][r]
		}
	}
	return x
}

// Sources lists the docs' sources, sorted.
func Sources(docs []Doc) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range docs {
		if !seen[d.Source] {
			seen[d.Source] = true
			out = append(out, d.Source)
		}
	}
	sort.Strings(out)
	return out
}

// LOSO scores every doc with a model fitted on the other sources' docs.
// Sources are held out in sorted order; each fold is independent, so the
// scores do not depend on the order either.
func LOSO(docs []Doc, lambda float64) []float64 {
	out := make([]float64, len(docs))
	for _, src := range Sources(docs) {
		var train []Doc
		var idx []int
		for i, d := range docs {
			if d.Source != src {
				train = append(train, d)
			} else {
				idx = append(idx, i)
			}
		}
		m := Fit(train, lambda)
		for _, i := range idx {
			out[i] = m.Score(docs[i].Features, docs[i].Lang)
		}
	}
	return out
}
