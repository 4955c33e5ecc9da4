package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
)

// forestLegend explains the claims' forest plots.
const forestLegend = template.HTML(`<p class="note">Each check with numbers has a plot: the measured estimate (dot) with its interval (black bar), the threshold its predicate compares with (red line), an equivalence band or claimed window (green), the article's claimed value (blue ◇) and, dashed, 1 (no effect) when in view; each is labelled. Positive quantities (ratios) are drawn on a log scale. Grey plots in italic rows are context checks: shown, not counted.</p>`)

// The forest plot's geometry, in pixels: the SVG's size, the margins of
// the scale, the centre line of the interval and the baselines of the
// label rows (threshold above, measured and claimed below, the scale's
// ticks at the bottom).
const (
	forestW, forestH        = 360.0, 100.0
	forestLeft, forestRight = 14.0, 14.0
	forestMid               = 34.0
	forestTopLabel          = 13.0
	forestEstLabel          = 61.0
	forestClaimLabel        = 74.0
	forestAxis              = 80.0
	forestTickLabel         = 95.0
	// forestCharW is the width of a label character (11 px system-ui),
	// generous, so that labels are kept inside the plot.
	forestCharW = 6.6
)

// forestPlot draws one check as a forest plot with its labels, or nothing
// when the check carries no estimate; tested is its predicate in words
// (its tooltip's first part), "" for none.
func forestPlot(c claim.CheckResult, tested string) template.HTML {
	est, lo, hi := c.Estimate, c.Lo, c.Hi
	if lo == 0 && hi == 0 && est == 0 && c.Threshold == 0 {
		return "" // a result without the numeric fields
	}
	if !finite(est) && !(finite(lo) && finite(hi)) {
		return ""
	}
	interval := finite(lo) && finite(hi) && !(lo == 0 && hi == 0)
	band := finite(c.BandLo) && finite(c.BandHi) && c.BandHi > c.BandLo
	var vals []float64
	for _, v := range []float64{est, c.Threshold, c.Claimed} {
		if finite(v) {
			vals = append(vals, v)
		}
	}
	if interval {
		vals = append(vals, lo, hi)
	}
	if band {
		vals = append(vals, c.BandLo, c.BandHi)
	}
	logScale := true
	for _, v := range vals {
		if v <= 0 {
			logScale = false
		}
	}
	sc := forestScale(vals, logScale)
	x := sc.pos
	var b strings.Builder
	class := "forest"
	if c.Context {
		class += " context"
	}
	fmt.Fprintf(&b, `<svg class="%s" width="%g" height="%g" viewBox="0 0 %g %g" role="img"><title>%s</title>`, class, forestW, forestH, forestW, forestH, template.HTMLEscapeString(forestTip(c, tested, logScale)))
	if band {
		fmt.Fprintf(&b, `<rect class="band" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, x(c.BandLo), forestMid-12, math.Max(1, x(c.BandHi)-x(c.BandLo)), 24.0)
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, forestLeft, forestAxis, forestW-forestRight, forestAxis)
	for _, t := range forestTicks(sc, logScale) {
		fmt.Fprintf(&b, `<line class="tick" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x(t), forestAxis, x(t), forestAxis+4)
		b.WriteString(forestLabel("ticklabel", x(t), forestTickLabel, fmt.Sprintf("%.3g", t)))
	}
	if logScale && sc.lo < 0 && sc.hi > 0 { // 1, no effect, is in view
		fmt.Fprintf(&b, `<line class="one" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x(1), forestMid-14, x(1), forestAxis)
	}
	if finite(c.Threshold) {
		fmt.Fprintf(&b, `<line class="thr" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x(c.Threshold), forestTopLabel+3, x(c.Threshold), forestMid+14)
		b.WriteString(forestLabel("thrlabel", x(c.Threshold), forestTopLabel, fmt.Sprintf("threshold %.3g", c.Threshold)))
	} else if band {
		b.WriteString(forestLabel("bandlabel", (x(c.BandLo)+x(c.BandHi))/2, forestTopLabel, fmt.Sprintf("band [%.3g, %.3g]", c.BandLo, c.BandHi)))
	}
	if interval {
		fmt.Fprintf(&b, `<line class="ci" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x(lo), forestMid, x(hi), forestMid)
		for _, v := range []float64{lo, hi} {
			fmt.Fprintf(&b, `<line class="ci" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x(v), forestMid-6, x(v), forestMid+6)
		}
	}
	if finite(c.Claimed) {
		cx := x(c.Claimed)
		fmt.Fprintf(&b, `<path class="claimed" d="M%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f Z"/>`, cx, forestMid-7, cx+6, forestMid, cx, forestMid+7, cx-6, forestMid)
		b.WriteString(forestLabel("claimlabel", cx, forestClaimLabel, fmt.Sprintf("claimed %.3g", c.Claimed)))
	}
	if finite(est) {
		fmt.Fprintf(&b, `<circle class="est" cx="%.1f" cy="%.1f" r="4.5"/>`, x(est), forestMid)
		b.WriteString(forestLabel("estlabel", x(est), forestEstLabel, "measured "+checkFigure(c)))
	} else {
		b.WriteString(forestLabel("estlabel", (x(lo)+x(hi))/2, forestEstLabel, fmt.Sprintf("measured [%.3g, %.3g]", lo, hi)))
	}
	if logScale {
		fmt.Fprintf(&b, `<text class="scalelabel" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, forestW-2, forestTickLabel, logNote)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// forestLabel writes a text label centred on x, moved inside the plot
// when it would cross an edge.
func forestLabel(class string, x, y float64, text string) string {
	w := float64(utf8.RuneCountInString(text)) * forestCharW
	anchor := "middle"
	switch {
	case x-w/2 < 2:
		x, anchor = 2, "start"
	case x+w/2 > forestW-2:
		x, anchor = forestW-2, "end"
	}
	return fmt.Sprintf(`<text class="%s" x="%.1f" y="%.1f" text-anchor="%s">%s</text>`, class, x, y, anchor, template.HTMLEscapeString(text))
}

// forestScale places a forest plot's values between its margins, on a log
// scale for positive quantities, with 8% of the span as padding each side.
func forestScale(vals []float64, logScale bool) axisScale {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if logScale {
			v = math.Log10(v)
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-0.5, hi+0.5
	}
	pad := (hi - lo) * 0.08
	return axisScale{lo: lo - pad, hi: hi + pad, p0: forestLeft, p1: forestW - forestRight, log: logScale}
}

// logNote marks a log scale, at the right end of the tick labels.
const logNote = "log scale"

// forestTicks are round values inside the scale: 1, 2 and 5 times powers
// of ten on a log scale that spans them, else evenly spaced round values
// (niceTicks); those whose labels would touch the previous one, or the log
// scale's note, are left out.
func forestTicks(a axisScale, note bool) []float64 {
	lo, hi := a.lo, a.hi
	var cand []float64
	if a.log {
		lo, hi = math.Pow(10, a.lo), math.Pow(10, a.hi)
		for k := math.Floor(a.lo); k <= math.Ceil(a.hi); k++ {
			for _, m := range []float64{1, 2, 5} {
				if v := m * math.Pow(10, k); v >= lo && v <= hi {
					cand = append(cand, v)
				}
			}
		}
	}
	if len(cand) < 3 {
		cand = niceTicks(lo, hi, 4)
	}
	end := forestW
	if note {
		end -= float64(len(logNote))*forestCharW + 8
	}
	var out []float64
	right := math.Inf(-1)
	for _, v := range cand {
		if v == 0 {
			v = 0 // not −0
		}
		w := float64(len(fmt.Sprintf("%.3g", v))) * forestCharW
		left := a.pos(v) - w/2
		if left < right+6 || left < 0 || a.pos(v)+w/2 > end {
			continue
		}
		out = append(out, v)
		right = a.pos(v) + w/2
	}
	return out
}

func forestTip(c claim.CheckResult, tested string, logScale bool) string {
	parts := []string{}
	if tested != "" {
		parts = append(parts, "tested: "+tested)
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
	if logScale {
		parts = append(parts, "log scale")
	}
	if c.Context {
		parts = append(parts, "context, not counted")
	}
	return strings.Join(parts, "; ")
}

// ratioPlot draws a paired ratio against 1 (no difference) on a log scale.
func ratioPlot(r analysis.Ratio, what string) template.HTML {
	if r.N == 0 || math.IsNaN(r.Ratio) {
		return ""
	}
	nan := math.NaN()
	return forestPlot(claim.CheckResult{Estimate: r.Ratio, Lo: r.Lo, Hi: r.Hi, Threshold: 1, Claimed: nan, BandLo: nan, BandHi: nan}, what)
}
