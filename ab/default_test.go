package ab_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/ab"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/internal/workmod"
	"github.com/perflab/perflab/report"
)

// TestRunDefault runs ab as a bare "perflab ab HEAD~1 HEAD" does: no
// rounds, no budget, random layouts. It samples sequentially under the
// default budget, relinks layouts in clusters whose rounds per layout the
// initial pass chooses, with functions pinned to 64 bytes (and says so),
// and prints an interval for the benchmark whose
// work grew fourfold — decided slower — with the run's plan saying how its
// layouts were sampled, and every paired statistic over clusters.
func TestRunDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds, relinks and runs test binaries")
	}
	repo, _ := workmod.Repo(t, workmod.Commit{Steps: 1000, Subject: "work: 1000 steps"}, workmod.Commit{Steps: 4000, Subject: "work: 4000 steps"})
	tmp, db := workmod.Store(t)
	var progress bytes.Buffer
	res, err := ab.Run(t.Context(), ab.Options{Dir: repo, Old: "HEAD~1", New: "HEAD", Bench: "Work", Benchtime: "10ms", NoProfile: true,
		DB: db, CacheDir: filepath.Join(tmp, "cache"), ArtifactDir: filepath.Join(tmp, "runs"), Progress: &progress})
	out := progress.String()
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	if !res.Run.Sequential {
		t.Fatalf("a bare ab did not sample sequentially:\n%s", out)
	}
	for _, want := range []string{"budget 2m0s", "link layouts: random", "sampling stopped after"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
	var row *findings.PairedRow
	for i, r := range res.Paired.Rows {
		if r.Unit == "sec/op" {
			row = &res.Paired.Rows[i]
		}
	}
	if row == nil || !row.Ratio.HasInterval() {
		t.Fatalf("no sec/op row with an interval: %+v\n%s", res.Paired.Rows, out)
	}
	if row.Verdict != findings.Slower || !(row.Ratio.Lo > 1) {
		t.Errorf("fourfold work: %s %+v, want slower with an interval above 1\n%s", row.Verdict, row.Ratio, out)
	}
	if res.Paired.Layout == nil || res.Paired.Layout.FuncAlign != ab.DefaultFuncAlign || res.Paired.Layout.Schedule == "" {
		t.Errorf("the comparison's layouts %+v: want them sampled, by a schedule, with functions pinned to %d bytes", res.Paired.Layout, ab.DefaultFuncAlign)
	}
	var text bytes.Buffer
	if err := report.PairedText(&text, res.Paired, res.Source(), nil); err != nil || !strings.Contains(text.String(), "pinned to 64 bytes on both sides") {
		t.Errorf("the table does not say what is pinned (%v):\n%s", err, text.String())
	}
	run, err := db.GetRun(t.Context(), res.Run.RunID)
	if err != nil {
		t.Fatal(err)
	}
	l := run.Plan.Layout
	if l == nil || l.PerLayout < 2 || run.Plan.Decide == nil || run.Plan.Decide.Budget != ab.DefaultBudget {
		t.Fatalf("plan %+v (layout %+v): want layouts of 2 rounds or more in the initial pass under the default budget", run.Plan, l)
	}
	// The rounds the comparison counts are the run's layout clusters.
	clusters := map[int]bool{}
	of := run.Plan.ClusterOf()
	for r := 1; r <= run.Plan.Stop.Round; r++ {
		clusters[of(r)] = true
	}
	if row.Ratio.N != len(clusters) {
		t.Errorf("the ratio counts %d observations, the run has %d layout clusters over %d rounds", row.Ratio.N, len(clusters), run.Plan.Stop.Round)
	}
}
