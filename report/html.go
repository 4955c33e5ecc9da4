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
	"time"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
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
// and SVG, no scripts and nothing fetched from the network. It holds what
// the Markdown report holds — claims, environment, tables with confidence
// intervals, crossovers, knees, failures, artifacts — plus a chart per
// series group along the spec's analysis axis, with confidence bands and
// the knees and crossovers marked.
func HTML(w io.Writer, in *Input, opt HTMLOptions) error {
	page := buildPage(in, opt)
	if err := htmlTmpl.Execute(w, page); err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	return nil
}

type htmlPage struct {
	Title      string
	Nav        []Link
	Meta       string
	When       string
	Desc       string
	Article    *Link
	SpecErr    string
	Partial    string
	Glance     []glance
	Opt        analysis.Options
	Claims     []claimRow
	Env        []store.KV
	Configs    []configRow
	Axis       string
	By         string
	Baseline   string
	MainUnit   string
	MainCharts []template.HTML
	NoCharts   string
	Crossings  []crossRow
	Knees      []kneeRow
	Extras     template.HTML // the Markdown report's other sections
	Tables     []unitTable
	Skipped    []store.Failure
	Failed     []failRow
	FailedMore int
	Artifacts  []artifactRow
}

type glance struct{ Text, Class string }

type claimRow struct {
	ID, Text, Claimed, Measured, Verdict, Class, Icon string
	Article                                           *Link
}

type configRow struct{ Name, Build, Exec, Binary string }

type unitTable struct {
	Unit   string
	Main   bool
	Cols   []string
	Rows   []tableRow
	Charts []template.HTML
}

type tableRow struct {
	Name  string
	Cells []tableCell
}

type tableCell struct{ Text, Tip string }

type failRow struct {
	Round                int
	Config, Cell, Reason string
}

type artifactRow struct {
	Config, Kind, Path, Size string
	Links                    []Link
}

func buildPage(in *Input, opt HTMLOptions) *htmlPage {
	r := in.Run
	pg := &htmlPage{Nav: opt.Nav, Opt: in.Opt, MainUnit: in.mainUnit()}
	pg.Title = r.Experiment
	if s := in.Spec; s != nil && s.Title != "" {
		pg.Title += " — " + s.Title
	}
	pg.Meta = fmt.Sprintf("Run %d · mode %s · status %s · %d of %d rounds stored · seed %d", r.ID, r.Mode, r.Status, roundsDone(in), r.RoundsPlanned, r.Seed)
	pg.When = "Started " + r.StartedAt.UTC().Format(time.RFC3339)
	if !r.FinishedAt.IsZero() {
		pg.When += fmt.Sprintf(", took %s", r.FinishedAt.Sub(r.StartedAt).Round(time.Second))
	}
	pg.When += fmt.Sprintf(". %d samples in %d cells.", len(in.Results), countCells(in))
	if s := in.Spec; s != nil {
		pg.Desc = strings.TrimSpace(s.Description)
		pg.Axis, pg.By, pg.Baseline = s.Analysis.Axis, s.Analysis.By, s.Analysis.Baseline
		if s.Article != "" {
			pg.Article = &Link{Text: s.Article, Href: articleHref(opt, s.Article)}
		}
	} else if in.SpecErr != nil {
		pg.SpecErr = fmtErr(in.SpecErr)
	}
	if r.Status == "interrupted" {
		pg.Partial = fmt.Sprintf("This run was interrupted: the tables use the %d completed rounds.", roundsDone(in))
	}
	pg.Claims = claimRows(in, pg.Article)
	pg.Env = in.Env
	for _, c := range in.Configs {
		bin := c.BinaryHash
		if c.Error != "" {
			bin = "build failed: " + c.Error
		}
		pg.Configs = append(pg.Configs, configRow{c.Name, orDash(strings.Join(append(slices.Clone(c.BuildEnv), c.BuildFlags...), " ")), orDash(strings.Join(c.ExecEnv, " ")), bin})
	}
	pg.Tables = unitTables(in)
	for _, t := range pg.Tables {
		if t.Main {
			pg.MainCharts = t.Charts
		}
	}
	if len(pg.MainCharts) == 0 {
		switch {
		case pg.Axis == "":
			pg.NoCharts = "The spec names no analysis axis, so there is nothing to chart; the tables below hold every cell."
		default:
			pg.NoCharts = fmt.Sprintf("No %s samples carry a numeric %s value to chart.", pg.MainUnit, pg.Axis)
		}
	}
	pg.Crossings = crossRows(in)
	pg.Knees = kneeRows(in)
	pg.Extras = markdownExtras(in)
	pg.Glance = glanceOf(in, pg)
	for _, f := range in.Failures {
		if strings.HasPrefix(f.Reason, "skipped: ") {
			f.Reason = strings.TrimPrefix(f.Reason, "skipped: ")
			pg.Skipped = append(pg.Skipped, f)
			continue
		}
		if len(pg.Failed) == 50 {
			pg.FailedMore++
			continue
		}
		pg.Failed = append(pg.Failed, failRow{f.Round, f.Config, f.Cell, lastLines(f.Reason, 3)})
	}
	for i, a := range in.Artifacts {
		links := []Link{{Text: "file", Href: fileHref(opt.Dir, a.Path)}}
		if opt.ArtifactLinks != nil {
			links = opt.ArtifactLinks(i, a)
		}
		pg.Artifacts = append(pg.Artifacts, artifactRow{a.Config, a.Kind, a.Path, benchunit.Scale(float64(a.Bytes), benchunit.Binary) + "B", links})
	}
	return pg
}

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

// verdictStyle gives a verdict's CSS class and icon; the icon and the word
// carry the meaning, the colour only repeats it.
func verdictStyle(v claim.Verdict) (class, icon string) {
	switch v {
	case claim.Reproduced:
		return "v-rep", "✓"
	case claim.Contradicted:
		return "v-con", "✗"
	case claim.Inconclusive:
		return "v-inc", "?"
	}
	return "v-nt", "–"
}

func claimRows(in *Input, article *Link) []claimRow {
	var out []claimRow
	for _, v := range in.Verdicts {
		measured := v.Measured
		if v.Reason != "" && v.Verdict != claim.Reproduced {
			measured = strings.TrimPrefix(measured+" — ", " — ") + v.Reason
		}
		class, icon := verdictStyle(v.Verdict)
		out = append(out, claimRow{ID: v.ID, Text: v.Text, Claimed: v.Claimed, Measured: measured, Verdict: string(v.Verdict), Class: class, Icon: icon, Article: article})
	}
	return out
}

// glanceOf is the one-line summary under the title: verdict counts,
// crossovers, failures and noise.
func glanceOf(in *Input, pg *htmlPage) []glance {
	var out []glance
	counts := map[claim.Verdict]int{}
	for _, v := range in.Verdicts {
		counts[v.Verdict]++
	}
	for _, v := range []claim.Verdict{claim.Reproduced, claim.Contradicted, claim.Inconclusive, claim.NotTestable} {
		if counts[v] > 0 {
			class, icon := verdictStyle(v)
			out = append(out, glance{fmt.Sprintf("%s %d %s", icon, counts[v], v), class})
		}
	}
	if pg.Axis != "" && pg.By != "" {
		n := 0
		for _, c := range pg.Crossings {
			if c.Found {
				n++
			}
		}
		out = append(out, glance{fmt.Sprintf("%d crossovers along %s", n, pg.Axis), ""})
	}
	if n := len(in.Failures); n > 0 {
		out = append(out, glance{fmt.Sprintf("%d failed or skipped cell runs", n), "v-inc"})
	}
	for _, kv := range in.Env {
		if kv.Key == "noise-before" || kv.Key == "noise-after" {
			out = append(out, glance{kv.Key + " " + kv.Value, ""})
		}
	}
	return out
}

// unitTables builds one pivot table per unit, main unit first, with the
// charts of that unit.
func unitTables(in *Input) []unitTable {
	axis := ""
	if in.Spec != nil {
		axis = in.Spec.Analysis.Axis
	}
	units := analysis.Units(in.Samples)
	main := in.mainUnit()
	slices.SortStableFunc(units, func(a, b string) int { return cmp.Compare(boolInt(a != main), boolInt(b != main)) })
	var out []unitTable
	for ui, u := range units {
		var us []*analysis.Sample
		for _, s := range in.Samples {
			if s.Unit == u {
				us = append(us, s)
			}
		}
		t := pivotTable(in, us, axis, u)
		t.Main = u == main
		t.Charts = unitCharts(in, us, u, ui)
		out = append(out, t)
	}
	return out
}

func pivotTable(in *Input, samples []*analysis.Sample, axis, unit string) unitTable {
	t := unitTable{Unit: unit}
	cols := []string{""}
	if axis != "" {
		if vals := axisOrder(samples, axis); len(vals) > 0 {
			cols = vals
		}
	}
	pivot := len(cols) > 1 || cols[0] != ""
	if pivot {
		t.Cols = cols
	} else {
		t.Cols = []string{unit}
	}
	index := map[string]int{}
	var rows []tableRow
	cells := map[string]map[string]*analysis.Sample{}
	for _, s := range samples {
		name, col := s.Name.Full, ""
		if pivot {
			name = s.Name.Without(axis)
			col, _ = s.Value(axis)
		}
		if s.Config != "" && len(in.Configs) > 1 {
			name += " @" + s.Config
		}
		if _, ok := index[name]; !ok {
			index[name] = len(rows)
			rows = append(rows, tableRow{Name: name})
			cells[name] = map[string]*analysis.Sample{}
		}
		cells[name][col] = s
	}
	slices.SortStableFunc(rows, func(a, b tableRow) int { return analysis.CompareNames(a.Name, b.Name) })
	class := benchunit.ClassOf(unit)
	for i := range rows {
		for _, c := range cols {
			s := cells[rows[i].Name][c]
			if s == nil {
				rows[i].Cells = append(rows[i].Cells, tableCell{})
				continue
			}
			sum := analysis.Summarize(s.Values, in.Opt)
			tip := fmt.Sprintf("median %s, %.0f%% CI [%s, %s], n=%d", benchunit.Scale(sum.Center, class), in.Opt.Confidence*100, benchunit.Scale(sum.Lo, class), benchunit.Scale(sum.Hi, class), sum.N)
			if sum.N < 6 {
				tip = fmt.Sprintf("median %s of n=%d (fewer than 6 samples: no interval)", benchunit.Scale(sum.Center, class), sum.N)
			}
			rows[i].Cells = append(rows[i].Cells, tableCell{fmtSummary(sum, class), tip})
		}
	}
	t.Rows = rows
	return t
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
func unitCharts(in *Input, samples []*analysis.Sample, unit string, ui int) []template.HTML {
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
		return analysis.CompareNames(x, y)
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
					sum := analysis.Summarize(s.Values, in.Opt)
					lo, hi := sum.Lo, sum.Hi
					if sum.N < 6 {
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
func compareGroups(in *Input, x, y *chartGroup) int {
	nx, ny := analysis.ParseName(x.name), analysis.ParseName(y.name)
	if c := cmp.Compare(nx.Base, ny.Base); c != 0 {
		return c
	}
	rank := func(p analysis.Part) int {
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
		return analysis.CompareNames(px.Key+"="+px.Value, py.Key+"="+py.Value)
	}
	if c := cmp.Compare(len(nx.Parts), len(ny.Parts)); c != 0 {
		return c
	}
	if c := cmp.Compare(nx.Procs, ny.Procs); c != 0 {
		return c
	}
	return analysis.CompareNames(x.config, y.config)
}

// chartMarkers marks the knees of the chart's series and their crossovers
// (with the baseline, when the spec names one).
func chartMarkers(in *Input, g *chartGroup, c *Chart, unit string) []ChartMarker {
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
		out = append(out, ChartMarker{Kind: MarkCrossover, X: x.X, Series: idx[other],
			Label: fmt.Sprintf("%s × %s at %.3g", other, base, x.X),
			Tip:   fmt.Sprintf("%s and %s cross at %s≈%.3g (between sampled %g and %g; significant at %g and %g)", la, lb, a.Axis, x.X, x.Lo, x.Hi, x.SigLo, x.SigHi)})
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
	n := analysis.ParseName(g.name)
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

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{"pct": pct}).Parse(`<!DOCTYPE html>
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
{{with .Partial}}<p class="warn">{{.}}</p>{{end}}
{{with .SpecErr}}<p class="warn">The run's spec could not be read ({{.}}), so no claims were judged.</p>{{end}}
{{with .Desc}}<p class="desc">{{.}}</p>{{end}}
{{with .Article}}<p>Article: <a class="article" href="{{.Href}}">{{.Text}}</a></p>{{end}}
</header>

{{if .Claims}}
<section id="claims">
<h2>Claims</h2>
<p class="note">Each claim is checked as a ratio or crossover between cells measured side by side in this run; the article's absolute figures are context (“claimed”). Intervals are {{printf "%.0f" (pct .Opt.Confidence)}}% confidence, significance by Mann-Whitney U at α={{.Opt.Alpha}}.</p>
<table class="claims">
<thead><tr><th>ID</th><th>claim</th><th>claimed</th><th>measured here</th><th>verdict</th></tr></thead>
<tbody>
{{range .Claims}}<tr class="{{.Class}}" id="claim-{{.ID}}"><td>{{if .Article}}<a href="{{.Article.Href}}" title="the claim's article: {{.Article.Text}}">{{.ID}}</a>{{else}}{{.ID}}{{end}}</td><td>{{.Text}}</td><td>{{.Claimed}}</td><td class="measured">{{.Measured}}</td><td class="verdict"><span class="badge {{.Class}}">{{.Icon}} {{.Verdict}}</span></td></tr>
{{end}}</tbody>
</table>
</section>
{{end}}

<section id="environment">
<h2>Environment</h2>
<dl class="env">{{range .Env}}<div><dt>{{.Key}}</dt><dd>{{.Value}}</dd></div>{{end}}</dl>
{{with .Configs}}<table>
<thead><tr><th>config</th><th>build env</th><th>exec env</th><th>binary</th></tr></thead>
<tbody>{{range .}}<tr><td>{{.Name}}</td><td>{{.Build}}</td><td>{{.Exec}}</td><td class="hash">{{.Binary}}</td></tr>{{end}}</tbody>
</table>{{end}}
</section>

<section id="charts">
<h2>{{.MainUnit}}{{with .Axis}} along {{.}}{{end}}</h2>
{{if .MainCharts}}<p class="note">Median of each cell (line) with its {{printf "%.0f" (pct .Opt.Confidence)}}% confidence interval (band){{if .By}}, one line per {{.By}}{{end}}. ▽ marks a knee; a dashed vertical line with ⊗ marks a crossover{{if .Baseline}} with {{.By}}={{.Baseline}}{{end}}. Hover a point for its numbers.</p>
<div class="charts">{{range .MainCharts}}<figure>{{.}}</figure>{{end}}</div>
{{else}}<p class="note">{{.NoCharts}}</p>{{end}}
</section>

{{if .Crossings}}
<section id="crossovers">
<h2>Crossovers along {{.Axis}} ({{.MainUnit}})</h2>
{{if .Baseline}}<p class="note">Where each {{.By}} overtakes <code>{{.By}}={{.Baseline}}</code>: the axis value where their {{.MainUnit}} medians cross, between the two sampled points that bracket it. “none” means the difference never changes sign significantly over the sampled range.</p>{{end}}
<table>
<thead><tr><th>series</th><th>vs</th><th>crossover at</th><th>bracket</th><th>before → after</th></tr></thead>
<tbody>{{range .Crossings}}<tr{{if .Found}} class="found"{{end}}><td>{{.Series}}</td><td>{{.Vs}}</td><td>{{.At}}</td><td>{{.Bracket}}</td><td>{{.Direction}}</td></tr>{{end}}</tbody>
</table>
</section>
{{end}}

{{if .Knees}}
<section id="knees">
<h2>Knees ({{.MainUnit}})</h2>
<p class="note">Where a series' cost bends along {{.Axis}} (two-segment piecewise-linear fit with an F-test, and Kneedle). <code>perflab analyze RUN --axis {{.Axis}}</code> lists knees of every unit.</p>
<table>
<thead><tr><th>series</th><th>unit</th><th>knee at</th><th>confidence</th><th>how</th></tr></thead>
<tbody>{{range .Knees}}<tr><td>{{.Series}}</td><td>{{.Unit}}</td><td>{{.X}}</td><td>{{.Confidence}}</td><td>{{.Note}}</td></tr>{{end}}</tbody>
</table>
</section>
{{end}}

{{.Extras}}
<section id="tables">
<h2>Tables</h2>
<p class="note">Median of each cell with its {{printf "%.0f" (pct .Opt.Confidence)}}% confidence interval as ±% (hover a cell for the interval). Cells with fewer than 6 samples have no interval.</p>
{{range .Tables}}{{if .Main}}<h3>{{.Unit}}</h3>{{template "table" .}}{{else}}<details><summary>{{.Unit}}</summary>{{with .Charts}}<div class="charts">{{range .}}<figure>{{.}}</figure>{{end}}</div>{{end}}{{template "table" .}}</details>{{end}}
{{end}}
</section>

{{with .Skipped}}
<section id="skipped">
<h2>Not applicable</h2>
<p class="note">{{len .}} cells skipped themselves (the benchmark called b.Skip), so they have no samples.</p>
<table><thead><tr><th>config</th><th>cell</th><th>why</th></tr></thead>
<tbody>{{range .}}<tr><td>{{.Config}}</td><td>{{.Cell}}</td><td>{{.Reason}}</td></tr>{{end}}</tbody></table>
</section>
{{end}}

{{if .Failed}}
<section id="failures">
<h2>Failures</h2>
<p class="note">These cell runs failed; their samples are missing from the tables.</p>
<table><thead><tr><th>round</th><th>config</th><th>cell</th><th>reason</th></tr></thead>
<tbody>{{range .Failed}}<tr><td>{{.Round}}</td><td>{{.Config}}</td><td>{{.Cell}}</td><td>{{.Reason}}</td></tr>{{end}}
{{if .FailedMore}}<tr><td>…</td><td></td><td></td><td>{{.FailedMore}} more</td></tr>{{end}}</tbody></table>
</section>
{{end}}

{{with .Artifacts}}
<section id="artifacts">
<h2>Artifacts</h2>
<p class="note">From a separate profiling pass (not the timed runs). Open a profile with <code>go tool pprof -http=: FILE</code>, the trace with <code>go tool trace FILE</code>, or browse them with <code>perflab serve</code>.</p>
<table><thead><tr><th>config</th><th>kind</th><th>file</th><th>size</th><th>open</th></tr></thead>
<tbody>{{range .}}<tr><td>{{.Config}}</td><td>{{.Kind}}</td><td><code>{{.Path}}</code></td><td>{{.Size}}</td><td>{{range .Links}}<a class="artifact" href="{{.Href}}">{{.Text}}</a> {{end}}</td></tr>{{end}}</tbody></table>
</section>
{{end}}
<footer>Written by perflab. Everything on this page comes from the run's stored samples; nothing is fetched from the network.</footer>
</body>
</html>
{{define "table"}}<div class="scroll"><table class="pivot" data-unit="{{.Unit}}">
<thead><tr><th>series</th>{{range .Cols}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><td class="name">{{.Name}}</td>{{range .Cells}}<td{{with .Tip}} title="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>{{end}}</tbody>
</table></div>{{end}}
`))

// pct turns a fraction into a percentage, for the template.
func pct(f float64) float64 { return f * 100 }

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
td.hash{font-family:ui-monospace,monospace;font-size:.8em;word-break:break-all}
code{font-family:ui-monospace,monospace;font-size:.9em}
.badge{display:inline-block;border-radius:4px;padding:1px 7px;font-weight:600;white-space:nowrap;border:1px solid}
.v-rep .badge,.chip.v-rep{background:#d7efe5;border-color:#009E73}
.v-con .badge,.chip.v-con{background:#f8dccc;border-color:#D55E00}
.v-inc .badge,.chip.v-inc{background:#fcf0c6;border-color:#E69F00}
.v-nt .badge,.chip.v-nt{background:#e9e9e9;border-color:#777}
tr.v-rep td:first-child{border-left:5px solid #009E73}
tr.v-con td:first-child{border-left:5px solid #D55E00}
tr.v-inc td:first-child{border-left:5px solid #E69F00}
tr.v-nt td:first-child{border-left:5px solid #777}
td.measured{font-size:.9em;max-width:48em}
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
