package report_test

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/internal/noisetest"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/store"
)

// storedLayoutPaired stores a LayoutRun as a run that sampled layouts,
// with env, and reads its paired comparison back as ab does.
func storedLayoutPaired(t *testing.T, l noisetest.LayoutRun, env []store.KV, seed uint64) *findings.PairedResult {
	t.Helper()
	set := fileSet(t, "layouts.txt", l.Text(rand.New(rand.NewPCG(seed, 7))))
	db, err := store.Open(filepath.Join(t.TempDir(), "perflab.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	rounds := l.Clusters * l.PerLayout
	run := &store.Run{Experiment: "ab", Mode: "quick", RoundsPlanned: rounds,
		Plan: store.Plan{Mode: "quick", Rounds: rounds, Layout: &store.Layout{PerLayout: l.PerLayout}}}
	if _, err := db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	for r := 1; r <= rounds; r++ {
		var in []*benchfmt.Result
		for _, res := range set.Results {
			if res.GetConfig("round") == strconv.Itoa(r) {
				in = append(in, res)
			}
		}
		if err := db.AddRound(ctx, run.ID, r, in); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetEnv(ctx, run.ID, env); err != nil {
		t.Fatal(err)
	}
	res, err := findings.LoadPaired(ctx, db, run.ID, "old", "new", analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// pairedOutputs writes a paired comparison as text, Markdown and JSON.
func pairedOutputs(t *testing.T, res *findings.PairedResult) map[string]string {
	t.Helper()
	var text, md, js strings.Builder
	src := report.PairedSource{Title: "A/B", Old: "old", New: "new", RunID: 1, Rounds: 24}
	if err := report.PairedText(&text, res, src, nil); err != nil {
		t.Fatal(err)
	}
	if err := report.PairedMarkdown(&md, res, src, nil); err != nil {
		t.Fatal(err)
	}
	if err := report.PairedJSON(&js, res, src, nil); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"text": text.String(), "markdown": md.String(), "json": js.String()}
}

// TestPairedFixedLayoutWords: a run that sampled layouts but whose new
// side kept one (the run's environment records layout-fixed-new) says in
// every output which side, why and from when, and words its verdicts for
// that binary, never for the source over layouts.
func TestPairedFixedLayoutWords(t *testing.T) {
	const why = "its toolchain's linker has no -randlayout (go1.22 and older)"
	source := "the verdicts hold for the source over layouts"
	for _, tc := range []struct {
		name string
		from int
		env  []store.KV
		want []string
	}{
		{"new fixed", 1, []store.KV{{Key: "layout-fixed-new", Value: why}},
			[]string{"new kept one fixed link layout (" + why + ")", "verdicts hold for new's binary against the other side's source over layouts, not for the change of source"}},
		{"relink failed mid-run", 10, []store.KV{{Key: "layout-fixed-new", Value: "relinking failed: exit status 2"}},
			[]string{"new kept one fixed link layout from round 10 on (relinking failed: exit status 2)", "verdicts hold for new's binary"}},
		{"both fixed", 0, []store.KV{{Key: "layout-fixed-old", Value: why}, {Key: "layout-fixed-new", Value: why}},
			[]string{"old kept one fixed link layout", "new kept one fixed link layout", "the verdicts hold for these two binaries only"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := noisetest.LayoutRun{Clusters: 8, PerLayout: 3, Layout: 0.03, NewFixedFrom: tc.from}
			out := pairedOutputs(t, storedLayoutPaired(t, l, tc.env, 7))
			for _, kind := range []string{"text", "markdown"} {
				contains(t, tc.name+" "+kind, out[kind], tc.want, []string{source})
			}
			contains(t, tc.name+" json", out["json"], []string{`"fixed": [`, `"config": "new"`, `"why": "`}, nil)
		})
	}
	// Both sides sampled: the verdicts are for the source.
	out := pairedOutputs(t, storedLayoutPaired(t, noisetest.LayoutRun{Clusters: 8, PerLayout: 3, Layout: 0.03}, nil, 7))
	contains(t, "sampled", out["text"], []string{source}, []string{"kept one fixed"})
}

// TestPairedMedianWords: a change that slows 20% of layouts by 30% and
// leaves the rest alone moves the median a fraction of a per cent: over
// 40 clusters its interval lies within ±1%, holding no change in most
// runs (the others decide "slower"). Such a row reads, in every output,
// as the median change within the band — never "no difference".
func TestPairedMedianWords(t *testing.T) {
	l := noisetest.LayoutRun{Clusters: 40, PerLayout: 2, Noise: noisetest.Gaussian(0.01),
		Change: func(rng *rand.Rand, _ string, _ int) float64 {
			if rng.Float64() < 0.2 {
				return math.Log(1.3)
			}
			return 0
		}}
	var res *findings.PairedResult
	for seed := uint64(1); seed <= 10; seed++ {
		if res = storedLayoutPaired(t, l, nil, seed); res.Rows[0].Verdict == findings.NoDifference {
			break
		}
	}
	if res.Rows[0].Verdict != findings.NoDifference {
		t.Fatalf("no run of 10 had its interval within ±1%% and holding 1: last %+v reads %q", res.Rows[0].Ratio, res.Rows[0].Verdict)
	}
	out := pairedOutputs(t, res)
	contains(t, "text", out["text"], []string{"median within ±1%", `"median within ±1%" when it lies within ±1% (the median change, no more`}, []string{"no difference"})
	contains(t, "markdown", out["markdown"], []string{"| median within ±1% |"}, []string{"no difference"})
	contains(t, "json", out["json"], []string{`"verdict": "median within band"`}, []string{"no difference"})
}
