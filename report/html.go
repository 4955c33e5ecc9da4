package report

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
)

// Link is a hyperlink in a generated page.
type Link struct{ Text, Href string }

// HTMLOptions says where an HTML report's links point.
type HTMLOptions struct {
	// Dir is the directory the report file is written to. Artifacts under
	// it are linked by relative path, so the run directory can be moved or
	// archived whole; others are linked as file:// URLs.
	Dir string
	// ArticleHref returns the link target of the spec's article file (its
	// name as in the spec, e.g. "C-syncpool-reuse-rate.txt"). Nil links to
	// the bare name.
	ArticleHref func(name string) string
	// ArtifactLinks returns the links shown for artifact i of the run.
	// Nil gives one link to the file.
	ArtifactLinks func(i int, a store.Artifact) []Link
	// Nav is a row of links above the title (perflab serve's navigation).
	Nav []Link
}

// HTML writes the run's report as one self-contained HTML page: inline CSS
// and SVG, no scripts and nothing fetched from the network. Its sections
// are the Markdown report's sections (the same section model), drawn with
// a chart per series group along the spec's analysis axis (confidence
// bands, knees and crossovers marked) and a forest plot per claim check.
func HTML(w io.Writer, f *findings.Run, opt HTMLOptions) error {
	h := headerOf(f)
	pg := &htmlPage{Title: h.Title, Nav: opt.Nav, Meta: h.Meta, When: h.When, Desc: h.Desc, Warnings: append(NotTestableConfigs(f), f.Warnings...)}
	if h.Article != "" {
		pg.Article = &Link{Text: h.Article, Href: articleHref(opt, h.Article)}
	}
	pg.Glance = glanceOf(f)
	pg.Body = htmlSections(sections(f, opt, true))
	if err := htmlTmpl.Execute(w, pg); err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	return nil
}

type htmlPage struct {
	Title    string
	Nav      []Link
	Meta     string
	When     string
	Desc     string
	Article  *Link
	Warnings []string
	Glance   []glance
	Body     template.HTML
}

type glance struct{ Text, Class string }

func articleHref(opt HTMLOptions, name string) string {
	if opt.ArticleHref != nil {
		return opt.ArticleHref(name)
	}
	return (&url.URL{Path: name}).String()
}

// fileHref links a file relative to dir when it lies inside it, else by a
// file:// URL.
func fileHref(dir, path string) string {
	if dir != "" {
		if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			return (&url.URL{Path: filepath.ToSlash(rel)}).String()
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// glanceOf is the one-line summary under the title: verdict counts,
// crossovers, failures and noise.
func glanceOf(f *findings.Run) []glance {
	var out []glance
	counts := map[string]int{}
	for _, v := range f.Verdicts {
		counts[string(v.Verdict)]++
	}
	for _, v := range []string{string(claim.Reproduced), string(claim.Contradicted), string(claim.Inconclusive), string(claim.NotTestable)} {
		if counts[v] > 0 {
			out = append(out, glance{fmt.Sprintf("%d %s", counts[v], v), verdictClass(v)})
		}
	}
	if f.Axis != "" && f.By != "" {
		n := 0
		for _, c := range crossRows(f) {
			if c.Found {
				n++
			}
		}
		out = append(out, glance{fmt.Sprintf("%d crossovers along %s", n, f.Axis), ""})
	}
	if n := FailedCellRuns(f); n > 0 {
		out = append(out, glance{fmt.Sprintf("%d failed cell runs", n), "v-inc"})
	}
	if n := len(f.Failures) - FailedCellRuns(f); n > 0 {
		out = append(out, glance{fmt.Sprintf("%d cells not applicable (skipped)", n), ""})
	}
	for _, kv := range f.Env {
		if kv.Key == "noise-before" || kv.Key == "noise-after" {
			out = append(out, glance{kv.Key + " " + kv.Value, ""})
		}
	}
	return out
}

func chartsHTML(charts []template.HTML) template.HTML {
	var b strings.Builder
	b.WriteString(`<div class="charts">`)
	for _, c := range charts {
		b.WriteString("<figure>" + string(c) + "</figure>")
	}
	b.WriteString("</div>")
	return template.HTML(b.String())
}

// chartGroup is the samples drawn in one chart: one config and one name
// apart from the axis and the by key.
type chartGroup struct {
	name, config string
	series       map[string][]*analysis.Sample // by label
}

// maxSeries is the most lines one chart holds; larger groups are split.
const maxSeries = 8

// unitCharts draws one chart per group of series of a unit along the
// analysis axis: lines are the values of the spec's "by" key (or the
// distinct series), knees and crossovers with the baseline are marked.
func unitCharts(in *findings.Run, samples []*analysis.Sample, unit string, ui int) []template.HTML {
	if in.Spec == nil || in.Spec.Analysis.Axis == "" {
		return nil
	}
	a := in.Spec.Analysis
	var groups []*chartGroup
	index := map[string]*chartGroup{}
	var labels []string
	for _, s := range samples {
		if _, ok := s.Num(a.Axis); !ok {
			continue
		}
		gname, label := s.Name.Without(a.Axis), ""
		if a.By != "" {
			if v, ok := s.Value(a.By); ok {
				gname, label = s.Name.Without(a.Axis, a.By), v
			}
		}
		if a.By == "config" {
			gname, label = s.Name.Without(a.Axis), s.Config
		}
		cfg := s.Config
		if a.By == "config" {
			cfg = ""
		}
		k := cfg + "\x00" + gname
		if a.By == "" || label == "" {
			k = cfg + "\x00" + s.Name.Base
			gname = s.Name.Base
			label = s.Name.Without(a.Axis)
		}
		g := index[k]
		if g == nil {
			g = &chartGroup{name: gname, config: cfg, series: map[string][]*analysis.Sample{}}
			index[k] = g
			groups = append(groups, g)
		}
		g.series[label] = append(g.series[label], s)
		if !slices.Contains(labels, label) {
			labels = append(labels, label)
		}
	}
	// One order for every chart, baseline first, so a variant keeps its
	// colour, dash and shape across charts.
	slices.SortStableFunc(labels, func(x, y string) int {
		if c := cmp.Compare(boolInt(x != a.Baseline), boolInt(y != a.Baseline)); c != 0 {
			return c
		}
		return benchname.Compare(x, y)
	})
	slices.SortStableFunc(groups, func(x, y *chartGroup) int { return compareGroups(in, x, y) })
	class := benchunit.ClassOf(unit)
	var out []template.HTML
	for gi, g := range groups {
		// Split a group with too many lines into charts of maxSeries.
		var present []string
		for _, l := range labels {
			if len(g.series[l]) > 0 {
				present = append(present, l)
			}
		}
		chunks := 1 + (len(present)-1)/maxSeries
		for ci := 0; ci < chunks; ci++ {
			part := present[ci*maxSeries : min(len(present), (ci+1)*maxSeries)]
			use := labels
			if chunks > 1 || len(labels) > maxSeries {
				use = part // colours then follow the chart, not the run
			}
			c := &Chart{
				ID:     fmt.Sprintf("chart-u%d-g%d-%d", ui, gi, ci),
				Title:  chartTitle(g, len(in.Configs) > 1),
				XLabel: a.Axis,
				YLabel: unit,
				YClass: class,
			}
			if chunks > 1 {
				c.Title += fmt.Sprintf(" (%d/%d)", ci+1, chunks)
			}
			for _, l := range use {
				cs := ChartSeries{Label: l}
				for _, s := range g.series[l] {
					x, _ := s.Num(a.Axis)
					sum := in.Summary(s)
					lo, hi := sum.Lo, sum.Hi
					if !sum.HasInterval() {
						lo, hi = math.NaN(), math.NaN()
					}
					tip := fmt.Sprintf("%s, %s=%s: %s %s, %.0f%% CI [%s, %s], n=%d", l, a.Axis, strconv.FormatFloat(x, 'g', -1, 64),
						benchunit.Scale(sum.Center, class), unit, in.Opt.Confidence*100, benchunit.Scale(sum.Lo, class), benchunit.Scale(sum.Hi, class), sum.N)
					cs.Points = append(cs.Points, ChartPoint{X: x, Y: sum.Center, Lo: lo, Hi: hi, Tip: tip})
				}
				c.Series = append(c.Series, cs)
			}
			c.AutoLog()
			c.Markers = chartMarkers(in, g, c, unit)
			out = append(out, template.HTML(c.SVG()))
		}
	}
	return out
}

// compareGroups orders charts as the spec lists its axis values (so
// mode=serial comes before mode=parallel when the spec says so), then by
// GOMAXPROCS and config.
func compareGroups(in *findings.Run, x, y *chartGroup) int {
	nx, ny := benchname.Parse(x.name), benchname.Parse(y.name)
	if c := cmp.Compare(nx.Base, ny.Base); c != 0 {
		return c
	}
	rank := func(p benchname.Part) int {
		for _, a := range in.Spec.Axes {
			if a.Key == p.Key {
				if i := slices.Index(a.Full, p.Value); i >= 0 {
					return i
				}
				if i := slices.Index(a.Quick, p.Value); i >= 0 {
					return i
				}
			}
		}
		return -1
	}
	for i := 0; i < min(len(nx.Parts), len(ny.Parts)); i++ {
		px, py := nx.Parts[i], ny.Parts[i]
		if px == py {
			continue
		}
		if px.Key == py.Key {
			rx, ry := rank(px), rank(py)
			if rx >= 0 && ry >= 0 && rx != ry {
				return cmp.Compare(rx, ry)
			}
		}
		return benchname.Compare(px.Key+"="+px.Value, py.Key+"="+py.Value)
	}
	if c := cmp.Compare(len(nx.Parts), len(ny.Parts)); c != 0 {
		return c
	}
	if c := cmp.Compare(nx.Procs, ny.Procs); c != 0 {
		return c
	}
	return benchname.Compare(x.config, y.config)
}

// chartMarkers marks the knees of the chart's series and their crossovers
// (with the baseline, when the spec names one).
func chartMarkers(in *findings.Run, g *chartGroup, c *Chart, unit string) []ChartMarker {
	a := in.Spec.Analysis
	idx := map[string]int{}
	for i, s := range c.Series {
		if len(s.Points) > 0 {
			idx[s.Label] = i
		}
	}
	// The series names (axis removed) drawn in this chart, by label.
	names := map[string]string{}
	for label, ss := range g.series {
		if _, ok := idx[label]; ok && len(ss) > 0 {
			names[ss[0].Name.Without(a.Axis)+"\x00"+ss[0].Config] = label
		}
	}
	var out []ChartMarker
	for _, k := range in.Knees {
		if k.Unit != unit {
			continue
		}
		label, ok := names[k.Series+"\x00"+k.Config]
		if !ok {
			continue
		}
		out = append(out, ChartMarker{Kind: MarkKnee, X: k.X, Series: idx[label], Label: "knee " + strconv.FormatFloat(k.X, 'g', 4, 64),
			Tip: fmt.Sprintf("knee of %s at %s=%g (%s confidence): %s", label, a.Axis, k.X, k.Confidence, k.Note)})
	}
	for _, x := range in.Crossovers {
		if x.Unit != unit {
			continue
		}
		var la, lb string
		var oka, okb bool
		if a.By == "config" {
			// Crossover names are "series config=NAME".
			la, oka = configLabel(x.A, names)
			lb, okb = configLabel(x.B, names)
		} else {
			la, oka = names[x.A+"\x00"+x.Config]
			lb, okb = names[x.B+"\x00"+x.Config]
		}
		if !oka || !okb {
			continue
		}
		if a.Baseline != "" && la != a.Baseline && lb != a.Baseline {
			continue
		}
		other, base := la, lb
		if la == a.Baseline {
			other, base = lb, la
		}
		lowerAbove := la
		if x.LowerAbove == "b" {
			lowerAbove = lb
		}
		out = append(out, ChartMarker{Kind: MarkCrossover, X: x.X, Series: idx[other],
			Label: fmt.Sprintf("%s × %s at %.3g", other, base, x.X),
			Tip:   fmt.Sprintf("%s and %s cross at %s≈%.3g (between sampled %g and %g; decided at %g and %g; %s lower above)", la, lb, a.Axis, x.X, x.Lo, x.Hi, x.SigLo, x.SigHi, lowerAbove)})
	}
	return out
}

func configLabel(name string, names map[string]string) (string, bool) {
	i := strings.LastIndex(name, " config=")
	if i < 0 {
		return "", false
	}
	l, ok := names[name[:i]+"\x00"+name[i+len(" config="):]]
	return l, ok
}

// chartTitle names a chart by the parts its lines share.
func chartTitle(g *chartGroup, showConfig bool) string {
	n := benchname.Parse(g.name)
	var parts []string
	for _, p := range n.Parts {
		if p.Key != "" {
			parts = append(parts, p.Key+"="+p.Value)
		} else {
			parts = append(parts, p.Value)
		}
	}
	parts = append(parts, "GOMAXPROCS "+strconv.Itoa(n.Procs))
	t := n.Base + ": " + strings.Join(parts, " · ")
	if showConfig && g.config != "" {
		t += " @" + g.config
	}
	return t
}

var htmlTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>` + htmlCSS + `</style>
</head>
<body>
{{with .Nav}}<nav>{{range .}}<a href="{{.Href}}">{{.Text}}</a>{{end}}</nav>{{end}}
<header>
<h1>{{.Title}}</h1>
<p class="meta">{{.Meta}}</p>
<p class="meta">{{.When}}</p>
{{with .Glance}}<p class="glance">{{range .}}<span class="chip {{.Class}}">{{.Text}}</span>{{end}}</p>{{end}}
{{range .Warnings}}<p class="warn">{{.}}</p>{{end}}
{{with .Desc}}<p class="desc">{{.}}</p>{{end}}
{{with .Article}}<p>Article: <a class="article" href="{{.Href}}">{{.Text}}</a></p>{{end}}
</header>
{{.Body}}
<footer>Written by perflab. Everything on this page comes from the run's stored samples; nothing is fetched from the network.</footer>
</body>
</html>
`))

const htmlCSS = `
:root{--fg:#1b1b1b;--muted:#555;--line:#d4d4d4;--bg:#fff;--soft:#f6f6f4}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1500px;padding:12px 24px 40px}
nav{display:flex;gap:16px;padding:6px 0 10px;border-bottom:1px solid var(--line);margin-bottom:8px}
nav a{font-weight:600}
h1{font-size:1.6em;margin:.3em 0}
h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:1px solid var(--line);padding-bottom:3px}
h3{font-size:1.05em;margin:1em 0 .3em}
a{color:#0060a0}
.meta{color:var(--muted);margin:.15em 0}
.desc{white-space:pre-line;max-width:80em}
.note{color:var(--muted);max-width:80em}
.warn{background:#fdf0c8;border-left:4px solid #E69F00;padding:6px 10px}
.glance{display:flex;flex-wrap:wrap;gap:8px}
.chip{border:1px solid var(--line);border-radius:12px;padding:1px 10px;background:var(--soft)}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.92em}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--soft)}
table.pivot td{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
table.pivot td.name{text-align:left}
.scroll{overflow-x:auto}
td.hash,td .hash{font-family:ui-monospace,monospace;font-size:.8em;word-break:break-all}
code{font-family:ui-monospace,monospace;font-size:.9em}
td.verdict{font-weight:600;white-space:nowrap}
td.verdict.v-rep::before{content:"✓ "}
td.verdict.v-con::before{content:"✗ "}
td.verdict.v-inc::before{content:"? "}
td.verdict.v-nt::before{content:"– "}
.chip.v-rep,td.verdict.v-rep{background:#d7efe5}
.chip.v-con,td.verdict.v-con{background:#f8dccc}
.chip.v-inc,td.verdict.v-inc{background:#fcf0c6}
.chip.v-nt,td.verdict.v-nt{background:#e9e9e9}
tr.v-rep td:first-child{border-left:5px solid #009E73}
tr.v-con td:first-child{border-left:5px solid #D55E00}
tr.v-inc td:first-child{border-left:5px solid #E69F00}
tr.v-nt td:first-child{border-left:5px solid #777}
tr.check td{font-size:.92em}
tr.context td{color:#777;font-style:italic}
tr.claim td{background:var(--soft);border-top:2px solid #aaa}
tr.nottested td{color:#7a5200;font-style:italic}
table.claims td.predicate{font-family:ui-monospace,monospace;font-size:.85em;max-width:34em;overflow-wrap:anywhere}
table.claims td.text,table.claims td.claimed{max-width:38em}
table.claims td.figure{white-space:nowrap;font-variant-numeric:tabular-nums}
details.cellnote{margin:.25em 0 0;font-size:.88em;font-weight:400;color:var(--muted);white-space:normal}
details.cellnote summary{font-weight:400;color:#0060a0}
details.cellnote div{min-width:20em;max-width:40em;white-space:normal}
svg.forest{display:block;margin-top:6px;font:11px system-ui,sans-serif}
svg.forest .axis,svg.forest .tick{stroke:#999}
svg.forest .ci{stroke:#1b1b1b;stroke-width:2.5}
svg.forest .est{fill:#1b1b1b}
svg.forest .thr{stroke:#D55E00;stroke-width:2}
svg.forest .band{fill:#009E73;opacity:.2}
svg.forest .claimed{fill:#fff;stroke:#0072B2;stroke-width:2}
svg.forest .one{stroke:#888;stroke-dasharray:3 3}
svg.forest text{font-size:11px;fill:#444;font-style:normal;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
svg.forest .thrlabel{fill:#B34700}
svg.forest .bandlabel{fill:#00704F}
svg.forest .claimlabel{fill:#0060A0}
svg.forest .estlabel{fill:#1b1b1b;font-weight:600}
svg.forest .ticklabel,svg.forest .scalelabel{fill:#666;font-size:10px}
svg.forest.context .ci,svg.forest.context .thr,svg.forest.context .claimed{stroke:#aaa}
svg.forest.context .est{fill:#aaa}
svg.forest.context .band{fill:#aaa}
svg.forest.context text{fill:#888}
dl.env{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:4px 16px;background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:10px 14px}
dl.env div{display:flex;gap:8px;min-width:0}
dt{font-weight:600;white-space:nowrap}
dd{margin:0;overflow-wrap:anywhere}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:14px}
figure{margin:0;border:1px solid var(--line);border-radius:6px;padding:4px;background:#fff}
svg.chart{width:100%;height:auto;display:block;font:12px system-ui,sans-serif}
svg.chart .grid{stroke:#e6e6e6}
svg.chart .frame{fill:none;stroke:#999}
svg.chart .tick{fill:#444;font-size:11px}
svg.chart .alabel{fill:#333;font-size:12px}
svg.chart .ctitle{font-weight:600;font-size:13px}
svg.chart .mlabel{font-size:11px;fill:#111;paint-order:stroke;stroke:#fff;stroke-width:3px}
svg.chart .dlabel text{font-size:12px;fill:#111}
details{margin:.4em 0}
summary{cursor:pointer;font-weight:600}
section.extra td{font-variant-numeric:tabular-nums}
footer{margin-top:2em;color:var(--muted);font-size:.85em}
`
