package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/internal/testrun"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/store"
)

// fileSet parses benchmark-format text as a set.
func fileSet(t *testing.T, name, text string) *findings.Set {
	t.Helper()
	s, warn, err := findings.ParseSet(strings.NewReader(text), name)
	if err != nil || warn != nil {
		t.Fatalf("%s: %v, %v", name, err, warn)
	}
	return s
}

// testdataSet parses a benchmark file of findings' testdata.
func testdataSet(t *testing.T, name string) *findings.Set {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "findings", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return fileSet(t, name, string(data))
}

func rules(t *testing.T, s string) []compare.Threshold {
	t.Helper()
	ths, err := compare.ParseThresholds(s)
	if err != nil {
		t.Fatal(err)
	}
	return ths
}

func contains(t *testing.T, what, out string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, out)
		}
	}
	for _, w := range not {
		if strings.Contains(out, w) {
			t.Errorf("%s has %q:\n%s", what, w, out)
		}
	}
}

func TestCompareText(t *testing.T) {
	res := findings.Compare(testdataSet(t, "old.txt"), testdataSet(t, "new.txt"), findings.CompareOptions{})
	gate := compare.Check(res.Gate(), res.Alpha, rules(t, "sec/op>+5%"))
	var out bytes.Buffer
	if err := report.CompareText(&out, res, &gate); err != nil {
		t.Fatal(err)
	}
	contains(t, "compare text", out.String(), []string{"old: old.txt\nnew: new.txt", "geomean over 3 common", "worse  FAIL sec/op>5%", "better", "in one side only", "BenchmarkOld-2", "95% CI of Δ"}, nil)

	out.Reset()
	if err := report.CompareJSON(&out, res, &gate); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Rows []struct {
			Name    string   `json:"name"`
			Delta   *float64 `json:"delta"`
			DeltaLo *float64 `json:"delta_lo"`
			Worse   bool     `json:"worse"`
		} `json:"rows"`
		Fails []struct {
			Threshold string `json:"threshold"`
		} `json:"fails"`
	}
	if err := json.Unmarshal(out.Bytes(), &parsed); err != nil {
		t.Fatalf("compare JSON: %v\n%s", err, out.String())
	}
	if len(parsed.Rows) != len(res.Rows) || len(parsed.Fails) != 1 || parsed.Fails[0].Threshold != "sec/op>5%" {
		t.Errorf("JSON: %d rows of %d, fails %+v", len(parsed.Rows), len(res.Rows), parsed.Fails)
	}
}

// withConfig returns copies of the set's results under a config.
func withConfig(s *findings.Set, config string) []*benchfmt.Result {
	var out []*benchfmt.Result
	for _, r := range s.Results {
		c := r.Clone()
		c.SetConfig("config", config)
		out = append(out, c)
	}
	return out
}

func TestCompareConfigsText(t *testing.T) {
	old, new := testdataSet(t, "old.txt"), testdataSet(t, "new.txt")
	tests := []struct {
		name      string
		old, new  []*benchfmt.Result
		want, not []string
	}{
		{"one config each side", withConfig(old, "default"), withConfig(new, "go126"),
			[]string{"configs compared: default (old) with go126 (new)", "@default→go126", "old   default  1  "}, nil},
		{"several configs, none common, no map: a short table and the hint",
			append(withConfig(old, "default"), withConfig(old, "gogc")...),
			append(withConfig(new, "go126"), withConfig(new, "nogc")...),
			[]string{"in one side only", "old   default  4", "new   go126    3", "pair them with --map default=go126"},
			[]string{"BenchmarkOld-2"}}, // three examples only, never every name
	}
	for _, tt := range tests {
		res := findings.Compare(&findings.Set{Results: tt.old}, &findings.Set{Results: tt.new}, findings.CompareOptions{})
		var out bytes.Buffer
		if err := report.CompareText(&out, res, nil); err != nil {
			t.Fatal(err)
		}
		contains(t, tt.name, out.String(), tt.want, tt.not)
	}
}

func TestPairedTextAndMarkdown(t *testing.T) {
	s := testdataSet(t, "paired.txt") // 12 rounds: BenchmarkA 3% slower in new, B unchanged
	res := findings.Paired(s.Results, "old", "new", analysis.DefaultOptions(), s.Units())
	gate := compare.Check(res.Gate(), res.Alpha, rules(t, "sec/op>+1%"))
	src := report.PairedSource{Title: "A/B", Old: "abc123 old", New: "def456 new", RunID: 7, Rounds: 12,
		Env: []store.KV{{Key: "cpu", Value: "Synthetic CPU"}, {Key: "noise-before", Value: "cv=1.0%"}}}
	var text, md strings.Builder
	if err := report.PairedText(&text, res, src, &gate); err != nil {
		t.Fatal(err)
	}
	contains(t, "paired text", text.String(), []string{"old: abc123 old\nnew: def456 new\n12 interleaved rounds", "new/old", "slower  FAIL sec/op>+1%", "undecided (±", "geomean (2)",
		"only in old (not compared): BenchmarkGone", "B/op, allocs/op: every value identical", "97.5% CI (m=2)", "p (adj)",
		"link layout: fixed (each side linked once): the verdicts hold for these two binaries only"}, []string{"no difference (±"})
	if err := report.PairedMarkdown(&md, res, src, &gate); err != nil {
		t.Fatal(err)
	}
	contains(t, "paired markdown", md.String(), []string{"### A/B", "**Gate `sec/op>+1%`: failed**", "| BenchmarkA | ", "🔴 slower **FAIL**",
		"B/op, allocs/op: every value identical on both sides.", "Only in old", "old: abc123 old  \n",
		"perflab run 7: 12 interleaved rounds. Each unit's intervals hold together at 95%", analysis.PairedMethod, "cpu: Synthetic CPU  \n", "noise-before: cv=1.0%",
		"| 97.5% CI (m=2) | p (adj) |", "link layout: fixed"},
		[]string{"Hodges–Lehmann estimate of the per-round new/old ratios", "no difference (±"})
}

// TestPairedGate: a paired comparison under a gate, in the terminal
// table, the Markdown summary and the JSON. BenchmarkB's interval is set
// to [−7.5%, +8.2%] around no change (a busy machine), BenchmarkA is 3%
// slower with a narrow interval: each rule decides A, and B only when its
// limit lies outside B's interval.
func TestPairedGate(t *testing.T) {
	s := testdataSet(t, "paired.txt")
	res := findings.Paired(s.Results, "old", "new", analysis.DefaultOptions(), s.Units())
	for i, r := range res.Rows {
		if r.Name == "BenchmarkB" && r.Unit == "sec/op" {
			res.Rows[i].Ratio.Ratio, res.Rows[i].Ratio.Lo, res.Rows[i].Ratio.Hi = 1, 0.925, 1.082
		}
	}
	const bWords = "undecided: a change below ±7.8% cannot be told apart on this machine"
	for _, tc := range []struct {
		rule, outcome     string
		fails, undecided  int
		text, md, notText []string
	}{
		{"sec/op>+1%", "failed", 1, 1,
			[]string{"slower  FAIL sec/op>+1%", bWords},
			[]string{"**Gate `sec/op>+1%`: failed** — 1 significant change(s) beyond the limit. It could not rule on 1 more.",
				"- BenchmarkB [sec/op]: 0% [-7.5%, +8.2%], p=", "undecided on sec/op>+1%: a change below ±7.8% cannot be told apart on this machine; the estimate is 1.0% from the limit",
				"🟡 " + bWords, "🔴 slower **FAIL**"}, nil},
		{"sec/op>+5%", "undecided", 0, 1,
			[]string{"slower  ", bWords},
			[]string{"**Gate `sec/op>+5%`: undecided** — no change beyond the limit, but 1 benchmark(s) could not be ruled on", "🟡 " + bWords, "the estimate is 4.9% from the limit"},
			[]string{"FAIL"}},
		{"sec/op>+10%", "passed", 0, 0,
			[]string{"slower  ", "undecided (±7.8%)"},
			[]string{"**Gate `sec/op>+10%`: passed** — every gated benchmark was decided within the limit."},
			[]string{"FAIL", "no difference ("}},
	} {
		gate := compare.Check(res.Gate(), res.Alpha, rules(t, tc.rule))
		var text, md, js strings.Builder
		if err := report.PairedText(&text, res, report.PairedSource{}, &gate); err != nil {
			t.Fatal(err)
		}
		contains(t, tc.rule+": paired text", text.String(), tc.text, tc.notText)
		if err := report.PairedMarkdown(&md, res, report.PairedSource{Title: "t"}, &gate); err != nil {
			t.Fatal(err)
		}
		contains(t, tc.rule+": paired markdown", md.String(), tc.md, tc.notText)
		if err := report.PairedJSON(&js, res, report.PairedSource{RunID: 3}, &gate); err != nil {
			t.Fatal(err)
		}
		var parsed struct {
			Source    struct{ Run int } `json:"source"`
			Gate      string            `json:"gate"`
			Fails     []json.RawMessage `json:"fails"`
			Undecided []struct {
				Row struct {
					Name          string
					Delta, Lo, Hi float64
				} `json:"row"`
				Threshold string  `json:"threshold"`
				Reason    string  `json:"reason"`
				Verdict   string  `json:"verdict"`
				Distance  float64 `json:"distance"`
			} `json:"undecided"`
			Rows []json.RawMessage `json:"rows"`
		}
		if err := json.Unmarshal([]byte(js.String()), &parsed); err != nil {
			t.Fatalf("%s: paired JSON: %v\n%s", tc.rule, err, js.String())
		}
		if parsed.Gate != tc.outcome || len(parsed.Fails) != tc.fails || len(parsed.Undecided) != tc.undecided || parsed.Source.Run != 3 || len(parsed.Rows) != len(res.Rows) {
			t.Errorf("%s: JSON gate %q, %d fails, %d undecided, run %d, %d rows; want %q, %d, %d, 3, %d", tc.rule, parsed.Gate, len(parsed.Fails), len(parsed.Undecided),
				parsed.Source.Run, len(parsed.Rows), tc.outcome, tc.fails, tc.undecided, len(res.Rows))
		}
		for _, u := range parsed.Undecided {
			if u.Row.Name != "BenchmarkB" || math.Abs(u.Row.Lo+0.075) > 1e-12 || math.Abs(u.Row.Hi-0.082) > 1e-12 || u.Reason != "interval holds the limit" || u.Verdict != bWords || !(u.Distance > 0) {
				t.Errorf("%s: JSON undecided %+v", tc.rule, u)
			}
		}
	}
	// Without a gate nothing is undecided and the JSON says no outcome.
	var js strings.Builder
	if err := report.PairedJSON(&js, res, report.PairedSource{}, nil); err != nil || strings.Contains(js.String(), `"gate"`) || !strings.Contains(js.String(), `"undecided": []`) {
		t.Errorf("JSON without a gate (%v):\n%s", err, js.String())
	}
}

// TestCompareGate: a comparison of files whose changes are known
// (compare/testdata/gate) under a gate, in the terminal table, the JSON
// and the HTML sections: A exactly at the +5% limit is undecided, B
// unchanged is decided.
func TestCompareGate(t *testing.T) {
	read := func(name string) *findings.Set {
		data, err := os.ReadFile(filepath.Join("..", "compare", "testdata", "gate", name))
		if err != nil {
			t.Fatal(err)
		}
		return fileSet(t, name, string(data))
	}
	for _, tc := range []struct {
		new, rule         string
		outcome           string
		text, html, notIn []string
	}{
		{"holds.txt", "sec/op>+5%", "undecided",
			[]string{"BenchmarkA-2", "+5.0%", "undecided: a change below ±0.3% cannot be told apart on this machine", "BenchmarkB-2"},
			[]string{"Gate undecided (sec/op>+5%) on 1 row(s)", "BenchmarkA-2 [sec/op]: +5.0% [+4.7%, +5.3%]", `<tr class="undecided">`},
			[]string{"FAIL", "Gate passed"}},
		{"mixed.txt", "sec/op>+5%", "failed",
			[]string{"worse  FAIL sec/op>5%", "undecided: a change below ±0.3%"},
			[]string{"Gate failed (sec/op>+5%)", "Gate undecided (sec/op>+5%) on 1 row(s)", "breaks sec/op>+5%"},
			[]string{"Gate passed"}},
		{"within.txt", "sec/op>+5%", "passed",
			[]string{"BenchmarkA-2", "~"},
			[]string{"Gate passed: every gated row was decided, none beyond sec/op>+5%."},
			[]string{"Gate undecided", "undecided:", "FAIL"}},
	} {
		res := findings.Compare(read("old.txt"), read(tc.new), findings.CompareOptions{})
		gate := compare.Check(res.Gate(), res.Alpha, rules(t, tc.rule))
		var text, js bytes.Buffer
		if err := report.CompareText(&text, res, &gate); err != nil {
			t.Fatal(err)
		}
		contains(t, tc.new+": compare text", text.String(), tc.text, tc.notIn)
		contains(t, tc.new+": compare HTML", html.UnescapeString(string(report.CompareHTML(res, &gate))), tc.html, tc.notIn)
		if err := report.CompareJSON(&js, res, &gate); err != nil {
			t.Fatal(err)
		}
		var parsed struct {
			Gate      string            `json:"gate"`
			Undecided []json.RawMessage `json:"undecided"`
		}
		if err := json.Unmarshal(js.Bytes(), &parsed); err != nil || parsed.Gate != tc.outcome || len(parsed.Undecided) != len(gate.Undecided()) {
			t.Errorf("%s: JSON gate %q with %d undecided (%v), want %q", tc.new, parsed.Gate, len(parsed.Undecided), err, tc.outcome)
		}
	}
}

func TestHistoryText(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for run := 0; run < 12; run++ {
		scale := 1.0
		if run >= 6 {
			scale = 1.3 // a planted slow-down from the seventh run on
		}
		if _, err := testrun.Store(ctx, db, testrun.Options{Seed: uint64(run + 1), Scale: scale, StartedAt: start.Add(time.Duration(run) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := findings.LoadHistory(ctx, db, "Pool/mode=serial/size=64/variant=plain/reuse=25", findings.HistoryOptions{})
	if err != nil || len(h.Changes) != 1 || h.Changes[0].Index != 6 {
		t.Fatalf("history %+v, %v: want one change at the seventh run", h, err)
	}
	var out bytes.Buffer
	if err := report.HistoryText(&out, h); err != nil {
		t.Fatal(err)
	}
	contains(t, "history", out.String(), []string{"between run 6 and run 7: median 20.", "before: runs 1–6 (6 runs), after: runs 7–12 (6 runs)", "---  change point", "95% CI", "ns"}, []string{"e-08"})
	page := string(report.HistoryHTML(h, func(id int64) string { return fmt.Sprintf("/run/%d", id) }))
	contains(t, "history page", page, []string{`<svg class="chart" id="history"`, `class="marker change"`, "between run 6 and run 7", `<tr class="change"><td><a href="/run/7">run 7</a>`}, nil)
}

func TestResultsTable(t *testing.T) {
	opt := analysis.DefaultOptions()
	row := func(name, config, unit string, vals ...float64) findings.SummaryRow {
		s := analysis.Summarize(vals, opt)
		return findings.SummaryRow{Name: name, Config: config, Unit: unit, Stat: findings.Stat{Median: s.Center, Lo: s.Lo, Hi: s.Hi, N: s.N, Interval: s.HasInterval(), Spread: s.Spread()}}
	}
	six := func(c float64) []float64 { return []float64{c * 0.98, c * 0.99, c, c, c * 1.01, c * 1.02} }
	tests := []struct {
		name      string
		rows      []findings.SummaryRow
		want, not []string
	}{
		{
			name: "time in human units, zero memory units folded",
			rows: []findings.SummaryRow{
				row("BenchmarkHash/size=64", "", "sec/op", six(1.742e-6)...),
				row("BenchmarkHash/size=64", "", "B/op", 0, 0, 0, 0, 0, 0),
				row("BenchmarkHash/size=64", "", "allocs/op", 0, 0, 0, 0, 0, 0),
			},
			want: []string{"sec/op:", "1.742µs", "[1.707µs, 1.777µs] ±2.0%", "B/op, allocs/op: 0 for every benchmark", "95% interval"},
			not:  []string{"1.742e-06", "\nB/op:"},
		},
		{
			name: "allocating benchmarks keep their tables; configs named when several",
			rows: []findings.SummaryRow{
				row("BenchmarkX", "a", "B/op", 4096, 4096, 4096, 4096, 4096, 4096),
				row("BenchmarkX", "b", "B/op", 0, 0, 0, 0, 0, 0),
				row("BenchmarkX", "a", "sec/op", 1e-3, 1e-3, 1e-3),
			},
			want: []string{"B/op:", "BenchmarkX @a", "4.000KiB", "(n=3: no interval)"},
		},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := report.ResultsTable(&b, tt.rows, 0.95); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		contains(t, tt.name, out, tt.want, tt.not)
		if i, j := strings.Index(out, "sec/op:"), strings.Index(out, "B/op:"); j >= 0 && i > j {
			t.Errorf("%s: sec/op should come first:\n%s", tt.name, out)
		}
	}
}

// TestJSON: one encoding of numbers everywhere: NaN and ±Inf are null,
// json tags are honoured, embedded structs are promoted, and a paired
// ratio is {rounds, ratio, lo, hi, conf, p}.
func TestJSON(t *testing.T) {
	type inner struct {
		A float64 `json:"a"`
		B float64 `json:"b,omitempty"`
	}
	v := struct {
		inner
		Name   string                `json:"name"`
		Skip   int                   `json:"-"`
		Nums   []float64             `json:"nums"`
		Point  findings.PointRatio   `json:"point"`
		Map    map[string]float64    `json:"map"`
		When   time.Time             `json:"when"`
		Ptr    *float64              `json:"ptr"`
		Ratios []analysis.Ratio      `json:"ratios"`
		Fits   []analysis.SeriesKnee `json:"fits,omitempty"`
	}{
		inner:  inner{A: math.NaN()},
		Name:   "x",
		Nums:   []float64{1.5, math.Inf(1), math.Inf(-1), math.NaN()},
		Point:  findings.PointRatio{X: "64", Ratio: analysis.Ratio{N: 6, Ratio: 1.1, Lo: math.NaN(), Hi: math.NaN(), P: 0.03}},
		Map:    map[string]float64{"b": 2, "a": math.NaN()},
		When:   time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Ratios: []analysis.Ratio{{N: 8, Ratio: 0.9, Lo: 0.85, Hi: 0.95, Conf: 0.96, P: 0.01}},
	}
	var out bytes.Buffer
	if err := report.JSON(&out, v); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, out.Bytes()); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"x","nums":[1.5,null,null,null],"point":{"x":"64","rounds":6,"ratio":1.1,"lo":null,"hi":null,"conf":0,"p":0.03},` +
		`"map":{"a":null,"b":2},"when":"2026-01-02T03:04:05Z","ptr":null,"ratios":[{"rounds":8,"ratio":0.9,"lo":0.85,"hi":0.95,"conf":0.96,"p":0.01}],"a":null}`
	if compact.String() != want {
		t.Errorf("JSON\n got %s\nwant %s", compact.String(), want)
	}
}

// TestAnalyzeDirections: perflab analyze reads a ratio of B/s above 1 as
// better, with or without "Unit B/s better=higher", and of sec/op as worse.
func TestAnalyzeDirections(t *testing.T) {
	for _, meta := range []string{"", "Unit B/s better=higher\n"} {
		var b strings.Builder
		b.WriteString(meta)
		for r := 1; r <= 8; r++ {
			fmt.Fprintf(&b, "round: %d\n", r)
			for _, impl := range []string{"old", "new"} {
				v := 1000 * (1 + 0.01*float64(r%3))
				if impl == "new" {
					v *= 1.1
				}
				fmt.Fprintf(&b, "BenchmarkGet/impl=%s-2 1000 %.3f ns/op %.3f MB/s\n", impl, v, v)
			}
		}
		a := findings.AnalyzeSets([]*findings.Set{fileSet(t, "f", b.String())}, findings.AnalyzeOptions{By: "impl", Baseline: "old"}, analysis.DefaultOptions())
		var out bytes.Buffer
		if err := report.AnalyzeText(&out, a); err != nil {
			t.Fatal(err)
		}
		contains(t, "analyze "+meta, out.String(), []string{"+10.0% B/s (better)", "+10.0% sec/op (worse)"}, []string{"B/s (worse)"})
	}
}

// TestPairedTableDirections: ab's paired table reads B/s rising as
// better, with or without "Unit B/s better=higher", and sec/op rising as
// slower (findings' testdata/rates.txt: new 10% up in both units).
func TestPairedTableDirections(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "findings", "testdata", "rates.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, meta := range []string{"", "Unit B/s better=higher\n"} {
		s := fileSet(t, "ab", meta+string(data))
		var out bytes.Buffer
		if err := report.PairedText(&out, findings.Paired(s.Results, "old", "new", analysis.DefaultOptions(), s.Units()), report.PairedSource{}, nil); err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m)^BenchmarkGet-2 .*\+10\.0% .* better\s*$`).MatchString(out.String()) || !regexp.MustCompile(`(?m)^BenchmarkGet-2 .*\+10\.0% .* slower\s*$`).MatchString(out.String()) {
			t.Errorf("metadata %q: want B/s +10%% better and sec/op +10%% slower:\n%s", meta, out.String())
		}
	}
}

// TestPairedTableOddities: a change is printed only beside medians that
// read differently (with the digits that tell them apart), rows 0 on both
// sides read alike, and interval columns of two levels say why.
func TestPairedTableOddities(t *testing.T) {
	s := testdataSet(t, "paired-zeros.txt")
	res := findings.Paired(s.Results, "old", "new", analysis.DefaultOptions(), s.Units())
	var text, md strings.Builder
	if err := report.PairedText(&text, res, report.PairedSource{Old: "a", New: "b", Rounds: 12}, nil); err != nil {
		t.Fatal(err)
	}
	if err := report.PairedMarkdown(&md, res, report.PairedSource{Title: "A/B", Rounds: 12}, nil); err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		lines := map[string]string{}
		unit := ""
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(strings.NewReplacer("|", " ").Replace(l))
			switch {
			case len(f) > 1 && f[1] == "old":
				unit = f[0]
				lines[unit+" head"] = l
			case len(f) > 0 && strings.HasPrefix(f[0], "Benchmark"):
				lines[f[0]+" "+unit] = l
			}
		}
		// Three sec/op rows at 1 − α/3, one B/s row at 1 − α: each
		// header says its m.
		contains(t, what+" sec/op header", lines["sec/op head"], []string{"98.33% CI (m=3)"}, nil)
		contains(t, what+" B/s header", lines["B/s head"], []string{"95% CI"}, []string{"m="})
		// 0 B/op on both sides but for one round (17 against 16): no
		// -5.9% beside two zeros, and it reads as the row 0 throughout.
		contains(t, what+" stray B/op row", lines["BenchmarkA B/op"], []string{"no difference (0 on both sides)", "—"}, []string{"-5.9%", "undecided"})
		contains(t, what+" zero B/op row", lines["BenchmarkB B/op"], []string{"no difference (0 on both sides)"}, []string{"undecided", "none ("})
		contains(t, what+" identical B/op row", lines["BenchmarkC B/op"], []string{"no difference (identical)"}, nil)
		// C's medians are 0.02% apart: they print with the digits
		// that show it.
		c := strings.Fields(strings.NewReplacer("|", " ").Replace(lines["BenchmarkC sec/op"]))
		if len(c) < 5 || c[1] == c[3] {
			t.Errorf("%s: C's sec/op medians print alike beside a change: %q", what, lines["BenchmarkC sec/op"])
		}
	}
}
