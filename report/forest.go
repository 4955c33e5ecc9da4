package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
)

// forestLegend explains the claims' forest plots.
const forestLegend = template.HTML(`<p class="note">Each check's plot: the measured estimate (dot) with its confidence interval (black bar), the threshold the predicate compares it with (red line), an equivalence band (green) where the check has one, the article's claimed value (blue ◇) and, dashed, 1 (no effect) when in view. Ratios are drawn on a log scale. Grey plots in italic rows are context checks: shown, not counted.</p>`)

// forestPlot draws one check as a small forest plot, or nothing when the
// check carries no estimate.
func forestPlot(c claim.CheckResult) template.HTML {
	fin := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	est, lo, hi := c.Estimate, c.Lo, c.Hi
	if lo == 0 && hi == 0 && est == 0 && c.Threshold == 0 {
		return "" // a result without the numeric fields
	}
	var vals []float64
	band := fin(c.BandLo) && fin(c.BandHi) && c.BandHi > c.BandLo
	for _, v := range []float64{est, lo, hi, c.Threshold, c.Claimed} {
		if fin(v) {
			vals = append(vals, v)
		}
	}
	if band {
		vals = append(vals, c.BandLo, c.BandHi)
	}
	if !fin(est) && !(fin(lo) && fin(hi)) {
		return ""
	}
	logScale := true
	for _, v := range vals {
		if v <= 0 {
			logScale = false
		}
	}
	tr := func(v float64) float64 {
		if logScale {
			return math.Log(v)
		}
		return v
	}
	min, max := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		min, max = math.Min(min, tr(v)), math.Max(max, tr(v))
	}
	if max-min < 1e-9 {
		min, max = min-0.5, max+0.5
	}
	pad := (max - min) * 0.08
	min, max = min-pad, max+pad
	const w, h, left, right = 300.0, 34.0, 6.0, 6.0
	x := func(v float64) float64 { return left + (tr(v)-min)/(max-min)*(w-left-right) }
	var b strings.Builder
	class := "forest"
	if c.Context {
		class += " context"
	}
	fmt.Fprintf(&b, `<svg class="%s" width="%g" height="%g" viewBox="0 0 %g %g" role="img"><title>%s</title>`, class, w, h, w, h, template.HTMLEscapeString(forestTip(c, logScale)))
	fmt.Fprintf(&b, `<line class="axis" x1="%.1f" y1="14" x2="%.1f" y2="14"/>`, left, w-right)
	if logScale && min < 0 && max > 0 { // 1, no effect, is in view
		fmt.Fprintf(&b, `<line class="one" x1="%.1f" y1="5" x2="%.1f" y2="23"/>`, x(1), x(1))
	}
	if band {
		fmt.Fprintf(&b, `<rect class="band" x="%.1f" y="4" width="%.1f" height="20"/>`, x(c.BandLo), math.Max(1, x(c.BandHi)-x(c.BandLo)))
	}
	if fin(c.Threshold) {
		fmt.Fprintf(&b, `<line class="thr" x1="%.1f" y1="3" x2="%.1f" y2="25"/>`, x(c.Threshold), x(c.Threshold))
	}
	if fin(lo) && fin(hi) && !(lo == 0 && hi == 0) {
		fmt.Fprintf(&b, `<line class="ci" x1="%.1f" y1="14" x2="%.1f" y2="14"/><line class="ci" x1="%.1f" y1="9" x2="%.1f" y2="19"/><line class="ci" x1="%.1f" y1="9" x2="%.1f" y2="19"/>`, x(lo), x(hi), x(lo), x(lo), x(hi), x(hi))
	}
	if fin(est) {
		fmt.Fprintf(&b, `<circle class="est" cx="%.1f" cy="14" r="3.5"/>`, x(est))
	}
	if fin(c.Claimed) {
		cx := x(c.Claimed)
		fmt.Fprintf(&b, `<path class="claimed" d="M%.1f 8 L%.1f 14 L%.1f 20 L%.1f 14 Z"/>`, cx, cx+5, cx, cx-5)
	}
	label := fmt.Sprintf("%.3g … %.3g", inv(min, logScale), inv(max, logScale))
	if logScale {
		label += " (log)"
	}
	if c.Context {
		label += " · context, not counted"
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="33">%s</text>`, left, template.HTMLEscapeString(label))
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func inv(v float64, logScale bool) float64 {
	if logScale {
		return math.Exp(v)
	}
	return v
}

func forestTip(c claim.CheckResult, logScale bool) string {
	parts := []string{}
	if c.Predicate != "" {
		parts = append(parts, "tested: "+c.Predicate)
	}
	parts = append(parts, fmt.Sprintf("estimate %.4g [%.4g, %.4g]", c.Estimate, c.Lo, c.Hi))
	if !math.IsNaN(c.Threshold) {
		parts = append(parts, fmt.Sprintf("threshold %.4g", c.Threshold))
	}
	if !math.IsNaN(c.BandLo) && !math.IsNaN(c.BandHi) && (c.BandLo != 0 || c.BandHi != 0) {
		parts = append(parts, fmt.Sprintf("band [%.4g, %.4g]", c.BandLo, c.BandHi))
	}
	if !math.IsNaN(c.Claimed) && c.Claimed != 0 {
		parts = append(parts, fmt.Sprintf("claimed %.4g", c.Claimed))
	}
	if c.Verdict != "" {
		parts = append(parts, "verdict "+string(c.Verdict))
	}
	return strings.Join(parts, "; ")
}

// ratioPlot draws a paired ratio against 1 (no difference) on a log scale.
func ratioPlot(r analysis.Ratio, what string) template.HTML {
	if r.N == 0 || math.IsNaN(r.Ratio) {
		return ""
	}
	nan := math.NaN()
	return forestPlot(claim.CheckResult{Predicate: what, Estimate: r.Ratio, Lo: r.Lo, Hi: r.Hi, Threshold: 1, Claimed: nan, BandLo: nan, BandHi: nan})
}
