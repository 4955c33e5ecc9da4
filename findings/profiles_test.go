package findings

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// contended is a real CPU profile of a program contending for the heap
// lock (see profshare/testdata/gen).
var contended = filepath.Join("..", "profshare", "testdata", "contended.pprof")

func profileInput(t *testing.T, specText string) *Run {
	t.Helper()
	in := Input{
		Run: &store.Run{ID: 1, Experiment: "alloc", Mode: "quick", Plan: store.Plan{Mode: "quick", CPU: []int{1}}},
		Artifacts: []store.Artifact{
			{Config: "default", Cell: "BenchmarkAlloc/variant=pooled/gomaxprocs=2", Kind: "cpu", Path: filepath.Join(t.TempDir(), "gone.pprof")},
			{Config: "default", Cell: "BenchmarkAlloc/variant=plain/gomaxprocs=2", Kind: "cpu", Path: contended},
			{Config: "default", Cell: "BenchmarkAlloc/variant=plain/gomaxprocs=2", Kind: "heap", Path: contended},
			{Config: "default", Kind: "cpu", Path: contended}, // a pass over all cells: no cell
		},
		Opt: analysis.DefaultOptions(),
	}
	if specText != "" {
		s, err := spec.Parse("spec.toml", []byte(specText))
		if err != nil {
			t.Fatal(err)
		}
		in.Spec = s
	}
	return Of(in)
}

func TestCellProfiles(t *testing.T) {
	in := profileInput(t, "")
	if len(in.Profiles) != 2 {
		t.Fatalf("%d cell profiles, want the 2 per-cell CPU artifacts: %+v", len(in.Profiles), in.Profiles)
	}
	plain, pooled := in.Profiles[0], in.Profiles[1]
	if plain.Name.Full != "BenchmarkAlloc/variant=plain/gomaxprocs=2" || pooled.Name.Full != "BenchmarkAlloc/variant=pooled/gomaxprocs=2" {
		t.Errorf("cells %q, %q; want plain, then pooled", plain.Name.Full, pooled.Name.Full)
	}
	if plain.Err != nil || plain.Counts.Total == 0 || plain.Counts.HeapLock == 0 || plain.Name.Procs != 1 {
		t.Errorf("plain: %+v; want the counts of %s and procs 1 (the run's one -test.cpu value)", plain, contended)
	}
	if pooled.Err == nil {
		t.Error("a missing profile file gave no error")
	}

	share, _ := plain.Counts.Share("heap-lock-share", 0.95)
	if got := in.Shares[0].Heap; got != share {
		t.Errorf("plain heap-lock share %+v, want %+v", got, share)
	}
	if in.Shares[1].Heap.Total != 0 {
		t.Errorf("an unreadable profile got a share: %+v", in.Shares[1])
	}
}

func TestProfiledProcs(t *testing.T) {
	sp, err := spec.Parse("spec.toml", []byte(profileSpec(`cpu = [2]`, `not_testable = "no profile here"`)))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		plan store.Plan
		spec *spec.Spec
		want int
	}{
		{"one value in the stored plan", store.Plan{Mode: "quick", CPU: []int{4}}, sp, 4},
		{"several values", store.Plan{Mode: "quick", CPU: []int{1, 2}}, sp, 0},
		{"no stored plan: the spec's mode", store.Plan{}, sp, 2},
		{"no cpu list anywhere", store.Plan{Mode: "quick"}, nil, 0},
	}
	for _, tt := range tests {
		in := &Input{Run: &store.Run{Mode: "quick", Plan: tt.plan}, Spec: tt.spec}
		if got := profiledProcs(in); got != tt.want {
			t.Errorf("%s: procs %d, want %d", tt.name, got, tt.want)
		}
	}
}

// profileSpec is a spec with per-cell profiles, the given extra line in
// [mode.quick], and the given check tables.
func profileSpec(modeLine, checks string) string {
	return `name = "alloc"
driver = "gotest"
benchmarks = ["BenchmarkAlloc"]

[[axis]]
key = "variant"
quick = ["plain", "pooled"]

[[axis]]
key = "gomaxprocs"
quick = [2]

[mode.quick]
rounds = 6
profile = "cell"
` + modeLine + `

[mode.full]
rounds = 6
profile = "cell"

[[claim]]
id = "E1"
text = "the heap lock takes CPU"
` + checks
}

func TestAnalyzeJudgesProfileChecks(t *testing.T) {
	in := profileInput(t, profileSpec("", `
  [[claim.check]]
  kind = "profile"
  where = "gomaxprocs=2"
  num = "variant=plain"
  op = ">"
  value = 0.001

[[claim]]
id = "E2"
text = "no profile for pooled"

  [[claim.check]]
  kind = "profile"
  num = "variant=pooled"
  op = "<"
  value = 0.02
`))
	want := []string{string(claim.Reproduced), string(claim.NotTestable)}
	if len(in.Verdicts) != len(want) {
		t.Fatalf("%d verdicts, want %d", len(in.Verdicts), len(want))
	}
	// A profile check reads one profiling pass: judged, shown, never counted.
	for i, v := range in.Verdicts {
		if len(v.Checks) != 1 || string(v.Checks[0].Verdict) != want[i] || !v.Checks[0].Context {
			t.Errorf("%s: %+v, want one context check %s", v.ID, v.Checks, want[i])
		}
	}
	if c := in.Verdicts[0].Checks[0]; c.Measure.How != claim.ProfileShare || c.Subject != (claim.Subject{Kind: "profile", Unit: "heap-lock-share", Num: "variant=plain", Where: "gomaxprocs=2"}) {
		t.Errorf("E1 measured %+v of %+v, want the plain cell's heap-lock share", c.Measure, c.Subject)
	}
	if w := in.Verdicts[1].Checks[0].Why; w.Why != claim.ProfileFailed || !strings.Contains(w.Err, "could not be read") {
		t.Errorf("E2 reason %+v, want the unreadable profile named", w)
	}
	// Checks against a threshold are one-sided tests at 5%: judged on the
	// two-sided 90% interval, which the reports print.
	if math.Abs(in.CheckConfidence-0.9) > 1e-12 {
		t.Errorf("CheckConfidence = %g, want 0.9 at 95%% confidence", in.CheckConfidence)
	}
}
