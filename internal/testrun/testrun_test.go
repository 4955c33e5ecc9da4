package testrun

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/store"
)

// TestStoredRunHasTheDocumentedShape checks that the analysis of a stored
// synthetic run finds the crossovers and the knee this package documents,
// and the verdicts its spec implies.
func TestStoredRunHasTheDocumentedShape(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id, err := Store(ctx, db, Options{ArtifactDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	in, err := findings.Load(ctx, db, id, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if in.Spec == nil {
		t.Fatalf("spec does not parse: %v", in.SpecErr)
	}
	found := map[string]float64{}
	for _, c := range in.Crossovers {
		if c.Unit != "sec/op" || !strings.HasSuffix(c.B, "variant=plain") && !strings.HasSuffix(c.A, "variant=plain") {
			continue
		}
		for v := range Crossovers {
			if strings.Contains(c.A+c.B, "variant="+v) {
				found[v] = c.X
			}
		}
	}
	for v, want := range Crossovers {
		if got, ok := found[v]; !ok || math.Abs(got-want) > 3 {
			t.Errorf("crossover of %s with plain at %v (found %v), want ≈ %v", v, got, ok, want)
		}
	}
	knee := false
	for _, k := range in.Knees {
		if k.Unit == "sec/op" && strings.Contains(k.Series, "variant=tiered") && math.Abs(k.X-KneeTiered) <= 10 {
			knee = true
		}
	}
	if !knee {
		t.Errorf("no knee of tiered near %v: %+v", KneeTiered, in.Knees)
	}
	want := map[string]claim.Verdict{"S1": claim.Reproduced, "S2": claim.Contradicted, "S3": claim.NotTestable}
	for _, v := range in.Verdicts {
		if want[v.ID] != v.Verdict {
			t.Errorf("claim %s: %s (%s %s), want %s", v.ID, v.Verdict, report.ClaimMeasured(v), report.ClaimReason(v), want[v.ID])
		}
	}
	if len(in.Artifacts) != 1 || in.Artifacts[0].Kind != "heap" {
		t.Errorf("artifacts %+v, want one heap profile", in.Artifacts)
	}
}

func TestBenchfmtParses(t *testing.T) {
	rs, err := gotest.Parse(strings.NewReader(Benchfmt(Options{Scale: 1.2})), "synthetic")
	if err != nil {
		t.Fatal(err)
	}
	if want := 6 * len(Variants) * len(Reuse); len(rs) != want {
		t.Fatalf("%d results, want %d", len(rs), want)
	}
	s := analysis.Collect(rs)
	for _, x := range s {
		if x.Unit == "sec/op" && x.Name.Full == "BenchmarkPool/mode=serial/size=64/variant=plain/reuse=0" {
			if m := analysis.Summarize(x.Values, analysis.DefaultOptions()).Center; math.Abs(m/(Cost("plain", 0)*1.2)-1) > 0.02 {
				t.Errorf("plain median %g, want ≈ %g", m, Cost("plain", 0)*1.2)
			}
			return
		}
	}
	t.Errorf("no plain reuse=0 sample in %d samples", len(s))
}
