package report

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/findings"
)

// Chart is a line chart drawn as inline SVG: one line per series with an
// optional confidence band, point markers with tooltips, direct labels at
// the right end of each line, and markers for knees, crossovers and change
// points. Colours are the Okabe–Ito palette, which stays distinguishable
// under the common colour-vision deficiencies; each series also has its own
// dash pattern and point shape, so eight series stay apart in grey too.
type Chart struct {
	ID     string // element id; optional
	Title  string
	XLabel string
	YLabel string
	// YClass scales y tick labels (benchunit.Decimal or Binary).
	YClass benchunit.Class
	// LogX and LogY draw that axis on a log10 scale. They take effect only
	// when every value on the axis is positive; AutoLog sets them when an
	// axis spans two decades or more.
	LogX, LogY bool
	// XTicks, when set, replaces the computed x ticks; XTickLabel formats
	// each tick (default: %g).
	XTicks     []float64
	XTickLabel func(x float64) string
	Series     []ChartSeries
	Markers    []ChartMarker
}

// ChartSeries is one line of a chart.
type ChartSeries struct {
	Label  string
	Points []ChartPoint
}

// ChartPoint is one point of a series. Lo and Hi bound its confidence
// band; NaN leaves the point out of the band.
type ChartPoint struct {
	X, Y, Lo, Hi float64
	Tip          string // tooltip text
}

// Marker kinds.
const (
	MarkKnee      = "knee"
	MarkCrossover = "crossover"
	MarkChange    = "change"
)

// ChartMarker marks an x position: a knee on one series, a crossover
// between two series, or a change point (a vertical line).
type ChartMarker struct {
	Kind   string // MarkKnee, MarkCrossover or MarkChange
	X      float64
	Series int    // index of the series the marker sits on; -1 for none
	Label  string // short text drawn beside the marker
	Tip    string // tooltip text
}

// Palette is the Okabe–Ito colour set, ordered so the first colours have
// the most contrast against white; yellow comes last.
var Palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

var dashes = []string{"", "7 3", "2 3", "9 3 2 3", "4 2", "1 3", "12 4", "5 2 1 2"}

// shapes are point markers centred on the origin, about 8 px across.
var shapes = []string{
	"M-3.5,0a3.5,3.5 0 1,0 7,0a3.5,3.5 0 1,0 -7,0Z",              // circle
	"M-3.2,-3.2h6.4v6.4h-6.4Z",                                   // square
	"M0,-4L3.8,3H-3.8Z",                                          // triangle up
	"M0,-4.2L4.2,0L0,4.2L-4.2,0Z",                                // diamond
	"M0,4L3.8,-3H-3.8Z",                                          // triangle down
	"M-1.3,-4h2.6v2.7h2.7v2.6h-2.7v2.7h-2.6v-2.7h-2.7v-2.6h2.7Z", // plus
	"M-4,-1.5L4,-1.5L4,1.5L-4,1.5Z",                              // bar
	"M-3.6,-2.1L0,-4.2L3.6,-2.1L3.6,2.1L0,4.2L-3.6,2.1Z",         // hexagon
}

// Chart geometry, in SVG user units.
const (
	chartW     = 720
	chartH     = 380
	chartLeft  = 70
	chartRight = 150 // room for direct labels
	chartTop   = 34
	chartBot   = 48
)

// AutoLog sets LogX and LogY for axes whose positive values span two
// decades or more.
func (c *Chart) AutoLog() {
	var xs, ys []float64
	for _, s := range c.Series {
		for _, p := range s.Points {
			xs = append(xs, p.X)
			ys = append(ys, p.Y)
		}
	}
	c.LogX = findings.LogScale(xs)
	c.LogY = findings.LogScale(ys)
}

// axisScale maps data values to pixels along one axis.
type axisScale struct {
	lo, hi   float64 // data domain (log10 of it when log)
	p0, p1   float64 // pixel range
	log      bool
	explicit []float64
}

func (a axisScale) pos(v float64) float64 {
	if a.log {
		v = math.Log10(v)
	}
	if a.hi == a.lo {
		return (a.p0 + a.p1) / 2
	}
	return a.p0 + (v-a.lo)/(a.hi-a.lo)*(a.p1-a.p0)
}

// ok reports whether v can be placed on the axis.
func (a axisScale) ok(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!a.log || v > 0)
}

// ticks returns tick values inside the domain.
func (a axisScale) ticks() []float64 {
	if a.explicit != nil {
		return a.explicit
	}
	if a.log {
		var out []float64
		span := a.hi - a.lo
		for e := math.Floor(a.lo); e <= math.Ceil(a.hi); e++ {
			for _, m := range []float64{1, 2, 5} {
				if m != 1 && span > 3 {
					continue
				}
				v := m * math.Pow(10, e)
				if lv := math.Log10(v); lv >= a.lo-1e-9 && lv <= a.hi+1e-9 {
					out = append(out, v)
				}
			}
		}
		return out
	}
	return niceTicks(a.lo, a.hi, 5)
}

// niceTicks returns about n round values (1, 2, 5 × 10^k steps) in [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		// Twelve significant digits drop the binary residue (3×0.1).
		t, _ := strconv.ParseFloat(strconv.FormatFloat(math.Round(v/step)*step, 'g', 12, 64), 64)
		out = append(out, t)
		if len(out) > 50 {
			break
		}
	}
	return out
}

// domain returns the range of vs padded for drawing, with lo at zero when
// the data sit well above zero on a linear axis.
func domain(vs []float64, log bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || (log && v <= 0) {
			continue
		}
		if log {
			v = math.Log10(v)
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if math.IsInf(lo, 0) {
		return 0, 1
	}
	if log {
		if hi-lo < 1e-9 {
			return lo - 0.5, hi + 0.5
		}
		pad := (hi - lo) * 0.04
		return lo - pad, hi + pad
	}
	if hi == lo {
		if lo == 0 {
			return 0, 1
		}
		return lo - math.Abs(lo)*0.1, hi + math.Abs(hi)*0.1
	}
	if lo > 0 && lo < 0.4*hi {
		lo = 0
	}
	pad := (hi - lo) * 0.05
	if lo != 0 {
		lo -= pad
	}
	return lo, hi + pad
}

// SVG returns the chart as an <svg> element. Every text is escaped.
func (c *Chart) SVG() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	logX := c.LogX && c.allPositive(func(pt ChartPoint) []float64 { return []float64{pt.X} })
	logY := c.LogY && c.allPositive(func(pt ChartPoint) []float64 { return []float64{pt.Y} })

	var xs, ys, bands []float64
	for _, s := range c.Series {
		for _, pt := range s.Points {
			xs = append(xs, pt.X)
			ys = append(ys, pt.Y)
			bands = append(bands, pt.Lo, pt.Hi)
		}
	}
	x := axisScale{log: logX, p0: chartLeft, p1: chartW - chartRight, explicit: c.XTicks}
	x.lo, x.hi = domain(xs, logX)
	if !logX && len(xs) > 0 { // the x axis spans exactly the data
		x.lo, x.hi = slices.Min(xs), slices.Max(xs)
		if x.lo == x.hi {
			x.lo, x.hi = x.lo-1, x.hi+1
		}
	}
	y := axisScale{log: logY, p0: chartH - chartBot, p1: chartTop}
	// Bands widen the y domain only up to half the medians' span on each
	// side, so one wild interval does not flatten every line; the rest of
	// the band is clipped.
	y.lo, y.hi = domain(ys, logY)
	bl, bh := domain(bands, logY)
	span := y.hi - y.lo
	y.lo = math.Max(math.Min(y.lo, bl), y.lo-span/2)
	y.hi = math.Min(math.Max(y.hi, bh), y.hi+span/2)
	if !logY && y.lo < 0 && slices.Min(append(slices.Clone(ys), 0)) >= 0 {
		y.lo = 0
	}

	id := c.ID
	if id == "" {
		id = fmt.Sprintf("chart%p", c)
	}
	clip := id + "-clip"
	p(`<svg class="chart" id="%s" viewBox="0 0 %d %d" role="img" aria-label="%s" data-title="%s" xmlns="http://www.w3.org/2000/svg">`,
		attr(id), chartW, chartH, attr(c.Title), attr(c.Title))
	p(`<title>%s</title>`, html.EscapeString(c.Title))
	p(`<defs><clipPath id="%s"><rect x="%d" y="%d" width="%d" height="%d"/></clipPath></defs>`,
		attr(clip), chartLeft, chartTop, chartW-chartLeft-chartRight, chartH-chartTop-chartBot)
	p(`<text class="ctitle" x="%d" y="18">%s</text>`, chartLeft, html.EscapeString(c.Title))

	// Axes, grid and ticks.
	p(`<g class="axes">`)
	for _, t := range y.ticks() {
		if !y.ok(t) {
			continue
		}
		py := y.pos(t)
		if py < chartTop-0.5 || py > chartH-chartBot+0.5 {
			continue
		}
		p(`<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, chartLeft, chartW-chartRight, py, py)
		p(`<text class="tick" x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`, chartLeft-6, py, html.EscapeString(tickLabel(t, c.YClass)))
	}
	xlabel := c.XTickLabel
	if xlabel == nil {
		xlabel = axisNumber
	}
	for _, t := range x.ticks() {
		if !x.ok(t) {
			continue
		}
		px := x.pos(t)
		if px < chartLeft-0.5 || px > chartW-chartRight+0.5 {
			continue
		}
		p(`<line class="grid" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/>`, px, px, chartTop, chartH-chartBot)
		p(`<text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`, px, chartH-chartBot+16, html.EscapeString(xlabel(t)))
	}
	p(`<rect class="frame" x="%d" y="%d" width="%d" height="%d"/>`, chartLeft, chartTop, chartW-chartLeft-chartRight, chartH-chartTop-chartBot)
	xl := c.XLabel
	if logX {
		xl += " (log scale)"
	}
	yl := c.YLabel
	if logY {
		yl += " (log scale)"
	}
	p(`<text class="alabel" x="%d" y="%d" text-anchor="middle">%s</text>`, (chartLeft+chartW-chartRight)/2, chartH-10, html.EscapeString(xl))
	p(`<text class="alabel" transform="translate(16,%d) rotate(-90)" text-anchor="middle">%s</text>`, (chartTop+chartH-chartBot)/2, html.EscapeString(yl))
	p(`</g>`)

	// Bands first, then lines, so no band covers a line.
	p(`<g class="bands" clip-path="url(#%s)">`, attr(clip))
	for i, s := range c.Series {
		if d := bandPath(s.Points, x, y); d != "" {
			p(`<path class="band" data-series="%s" d="%s" fill="%s" fill-opacity="0.12" stroke="none"/>`, attr(s.Label), d, color(i))
		}
	}
	p(`</g>`)
	for i, s := range c.Series {
		p(`<g class="series" data-series="%s" data-index="%d">`, attr(s.Label), i)
		var pts []string
		for _, pt := range sortedPoints(s.Points) {
			if x.ok(pt.X) && y.ok(pt.Y) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x.pos(pt.X), y.pos(pt.Y)))
			}
		}
		if len(pts) > 1 {
			dash := ""
			if d := dashes[i%len(dashes)]; d != "" {
				dash = fmt.Sprintf(` stroke-dasharray="%s"`, d)
			}
			p(`<polyline class="line" points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`, strings.Join(pts, " "), color(i), dash)
		}
		for _, pt := range s.Points {
			if !x.ok(pt.X) || !y.ok(pt.Y) {
				continue
			}
			p(`<path class="point" transform="translate(%.1f,%.1f)" d="%s" fill="%s" stroke="#222" stroke-width="0.6"><title>%s</title></path>`,
				x.pos(pt.X), y.pos(pt.Y), shapes[i%len(shapes)], color(i), html.EscapeString(pt.Tip))
		}
		p(`</g>`)
	}
	c.markers(&b, x, y)
	c.labels(&b, x, y)
	p(`</svg>`)
	return b.String()
}

func (c *Chart) allPositive(vals func(ChartPoint) []float64) bool {
	n := 0
	for _, s := range c.Series {
		for _, pt := range s.Points {
			for _, v := range vals(pt) {
				if !(v > 0) {
					return false
				}
				n++
			}
		}
	}
	return n > 0
}

func color(i int) string { return Palette[i%len(Palette)] }

func sortedPoints(pts []ChartPoint) []ChartPoint {
	out := slices.Clone(pts)
	slices.SortStableFunc(out, func(a, b ChartPoint) int { return cmp.Compare(a.X, b.X) })
	return out
}

// bandPath outlines the confidence band: along Hi, then back along Lo.
func bandPath(pts []ChartPoint, x, y axisScale) string {
	var up, down []string
	for _, pt := range sortedPoints(pts) {
		if !x.ok(pt.X) || !y.ok(pt.Lo) || !y.ok(pt.Hi) {
			continue
		}
		// Held inside the plot even where a viewer ignores the clip path.
		lo, hi := math.Min(y.p0, y.p1), math.Max(y.p0, y.p1)
		in := func(v float64) float64 { return math.Min(hi, math.Max(lo, y.pos(v))) }
		px := x.pos(pt.X)
		up = append(up, fmt.Sprintf("%.1f,%.1f", px, in(pt.Hi)))
		down = append(down, fmt.Sprintf("%.1f,%.1f", px, in(pt.Lo)))
	}
	if len(up) < 2 {
		return ""
	}
	slices.Reverse(down)
	return "M" + strings.Join(up, "L") + "L" + strings.Join(down, "L") + "Z"
}

// valueAt returns the pixel y of a series' line at data x, interpolating
// between the points that bracket it as the drawn line does.
func valueAt(pts []ChartPoint, xv float64, x, y axisScale) (float64, bool) {
	ps := sortedPoints(pts)
	for i := range ps {
		if ps[i].X == xv {
			if !y.ok(ps[i].Y) {
				return 0, false
			}
			return y.pos(ps[i].Y), true
		}
		if i > 0 && ps[i-1].X < xv && xv < ps[i].X {
			f := (x.pos(xv) - x.pos(ps[i-1].X)) / (x.pos(ps[i].X) - x.pos(ps[i-1].X))
			if !y.ok(ps[i-1].Y) || !y.ok(ps[i].Y) {
				return 0, false
			}
			a, b := y.pos(ps[i-1].Y), y.pos(ps[i].Y)
			return a + f*(b-a), true // a pixel position
		}
	}
	return 0, false
}

// markerY returns the pixel y of a marker on series i at x.
func (c *Chart) markerY(i int, xv float64, x, y axisScale) (float64, bool) {
	if i < 0 || i >= len(c.Series) {
		return 0, false
	}
	return valueAt(c.Series[i].Points, xv, x, y)
}

func (c *Chart) markers(b *strings.Builder, x, y axisScale) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	row := 0
	for _, m := range c.Markers {
		if !x.ok(m.X) {
			continue
		}
		px := x.pos(m.X)
		if px < chartLeft-0.5 || px > chartW-chartRight+0.5 {
			continue
		}
		series := ""
		if m.Series >= 0 && m.Series < len(c.Series) {
			series = c.Series[m.Series].Label
		}
		p(`<g class="marker %s" data-x="%s" data-series="%s" data-label="%s"><title>%s</title>`,
			attr(m.Kind), strconv.FormatFloat(m.X, 'g', -1, 64), attr(series), attr(m.Label), html.EscapeString(cmp.Or(m.Tip, m.Label)))
		switch m.Kind {
		case MarkCrossover, MarkChange:
			p(`<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#444" stroke-width="1.2" stroke-dasharray="4 3"/>`, px, px, chartTop, chartH-chartBot)
			ty := chartTop + 12 + 13*(row%4)
			row++
			anchor := "start"
			tx := px + 4
			if px > (chartLeft+chartW-chartRight)/2 {
				anchor, tx = "end", px-4
			}
			p(`<text class="mlabel" x="%.1f" y="%d" text-anchor="%s">%s</text>`, tx, ty, anchor, html.EscapeString(m.Label))
			if py, ok := c.markerY(m.Series, m.X, x, y); ok {
				p(`<circle cx="%.1f" cy="%.1f" r="6" fill="#fff" stroke="#000" stroke-width="1.6"/>`, px, py)
				p(`<path d="M%.1f,%.1fl6,6m0,-6l-6,6" stroke="#000" stroke-width="1.4"/>`, px-3, py-3)
			}
		case MarkKnee:
			py, ok := c.markerY(m.Series, m.X, x, y)
			if !ok {
				py = float64(chartH - chartBot)
			}
			col := "#444"
			if m.Series >= 0 {
				col = color(m.Series)
			}
			p(`<path d="M%.1f,%.1fl-6,-11h12Z" fill="#fff" stroke="%s" stroke-width="2"/>`, px, py-3, col)
			p(`<text class="mlabel" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, px, py-17, html.EscapeString(m.Label))
		}
		p(`</g>`)
	}
}

// labels writes each series' label at the right end of its line, spread
// apart so no two overlap, with a leader line to the last point.
func (c *Chart) labels(b *strings.Builder, x, y axisScale) {
	type lab struct {
		i       int
		y0, y   float64 // end of line, label position
		endX    float64
		visible bool
	}
	var labs []lab
	for i, s := range c.Series {
		ps := sortedPoints(s.Points)
		for j := len(ps) - 1; j >= 0; j-- {
			if x.ok(ps[j].X) && y.ok(ps[j].Y) {
				py := y.pos(ps[j].Y)
				labs = append(labs, lab{i: i, y0: py, y: py, endX: x.pos(ps[j].X), visible: true})
				break
			}
		}
	}
	slices.SortStableFunc(labs, func(a, b lab) int { return cmp.Compare(a.y0, b.y0) })
	const gap = 13.0
	top, bot := float64(chartTop+6), float64(chartH-chartBot-2)
	for k := range labs {
		labs[k].y = math.Max(labs[k].y, top)
		if k > 0 {
			labs[k].y = math.Max(labs[k].y, labs[k-1].y+gap)
		}
	}
	for k := len(labs) - 1; k >= 0; k-- {
		limit := bot
		if k < len(labs)-1 {
			limit = labs[k+1].y - gap
		}
		labs[k].y = math.Min(labs[k].y, limit)
	}
	lx := float64(chartW - chartRight + 8)
	for _, l := range labs {
		fmt.Fprintf(b, `<g class="dlabel" data-series="%s"><path d="M%.1f,%.1fL%.1f,%.1f" stroke="%s" stroke-width="1"/>`,
			attr(c.Series[l.i].Label), l.endX, l.y0, lx+10, l.y, color(l.i))
		fmt.Fprintf(b, `<path transform="translate(%.1f,%.1f)" d="%s" fill="%s" stroke="#222" stroke-width="0.6"/>`, lx+16, l.y, shapes[l.i%len(shapes)], color(l.i))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" dominant-baseline="middle">%s</text></g>`, lx+24, l.y, html.EscapeString(shorten(c.Series[l.i].Label, 18)))
	}
}

// axisNumber prints an axis value plainly (10000, 0.25), falling back to
// exponent form for very large or small values.
func axisNumber(v float64) string {
	if a := math.Abs(v); a == 0 || a >= 1e-3 && a < 1e7 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// tickLabel scales a tick value with an SI or binary prefix and drops
// trailing zeros: "80n", "1.5µ", "0".
func tickLabel(v float64, class benchunit.Class) string {
	if v == 0 {
		return "0"
	}
	s := benchunit.Scale(v, class)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' && r != '-' })
	num, suffix := s, ""
	if i >= 0 {
		num, suffix = s[:i], s[i:]
	}
	if strings.Contains(num, ".") {
		num = strings.TrimRight(strings.TrimRight(num, "0"), ".")
	}
	return num + suffix
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// attr escapes s for a double-quoted attribute.
func attr(s string) string { return html.EscapeString(s) }
