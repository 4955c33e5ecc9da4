package ab_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perflab/perflab/ab"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/internal/workmod"
)

// TestRun compares two commits of a throwaway module through the API
// alone, where the second makes BenchmarkWork do ten times the work: the
// run is stored and labelled, the paired change is slower with an
// interval above the gate's limit, so the gate fails, and the benchmark
// only NEW has is listed. Ten times, so that ten rounds of one link per
// side decide it on a busy machine (see cmd/perflab's
// TestABDetectsSlowdown for how often rounds of the same code read apart).
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	repo, hashes := workmod.Repo(t, workmod.Commit{Steps: 1000, Subject: "work: 1000 steps"},
		workmod.Commit{Steps: 10000, Subject: "work: 10000 steps", Files: map[string]string{"extra_test.go": workmod.ExtraTestGo}})
	rules, err := compare.ParseThresholds("sec/op>+1%")
	if err != nil {
		t.Fatal(err)
	}
	res, progress, err := runAB(t, ab.Options{
		Dir: repo, Old: "HEAD~1", New: "HEAD", Bench: "Work", Rounds: 10, Benchtime: "20ms", Layout: engine.LayoutFixed, NoProfile: true,
		Rules: rules,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	if res.Run.Status != "complete" || res.Run.RoundsDone != 10 {
		t.Errorf("run %+v, want 10 rounds complete", res.Run)
	}
	if res.Old.Source.Commit != hashes[0] || res.New.Source.Commit != hashes[1] || !strings.Contains(res.New.Label(), "work: 10000 steps") {
		t.Errorf("sides %s (%s), %s (%s); want the two commits", res.Old.Label(), res.Old.Source.Commit, res.New.Label(), res.New.Source.Commit)
	}
	names := func(bs []discover.Bench) []string {
		var out []string
		for _, b := range bs {
			out = append(out, b.Name())
		}
		return out
	}
	if !slices.Equal(names(res.Benchmarks), []string{"BenchmarkWork"}) || len(res.OnlyOld) != 0 || !slices.Equal(names(res.OnlyNew), []string{"BenchmarkWorkExtra"}) {
		t.Errorf("benchmarks %v, only old %v, only new %v", names(res.Benchmarks), names(res.OnlyOld), names(res.OnlyNew))
	}
	var row *findings.PairedRow
	for i, r := range res.Paired.Rows {
		if strings.TrimRight(r.Name, "-0123456789") == "BenchmarkWork" && r.Unit == "sec/op" {
			row = &res.Paired.Rows[i]
		}
	}
	if row == nil {
		t.Fatalf("no paired sec/op row of BenchmarkWork: %+v", res.Paired.Rows)
	}
	// Ten times the work: the interval lies above the gate's limit, and
	// the bounds rule out a wrong pairing (the one-step BenchmarkWorkExtra,
	// or old and new swapped).
	if row.Verdict != findings.Slower || !(row.Ratio.Lo > 1.01) || row.Ratio.Ratio < 10.0/8 || row.Ratio.Ratio > 10*8 {
		t.Errorf("paired change %s %+v, want slower by about 10×", row.Verdict, row.Ratio)
	}
	if !slices.Equal(res.Paired.OnlyNew, []string{"BenchmarkWorkExtra"}) {
		t.Errorf("paired view's only-new %v", res.Paired.OnlyNew)
	}
	if res.Gate == nil || len(res.Gate.Fails()) != 1 || len(res.Gate.Undecided()) != 0 {
		t.Errorf("gate %+v, want one failure", res.Gate)
	}
	labels := map[string]string{}
	for _, kv := range res.Env {
		labels[kv.Key] = kv.Value
	}
	if labels["ab-old"] != res.Old.Label() || labels["ab-new"] != res.New.Label() {
		t.Errorf("stored labels %q, %q; want the sides'", labels["ab-old"], labels["ab-new"])
	}
	if src := res.Source(); src.RunID != res.Run.RunID || src.Title != "perflab ab: `"+hashes[0][:12]+"` → `"+hashes[1][:12]+"`" {
		t.Errorf("source %+v", src)
	}
	if !strings.Contains(progress.String(), "perflab ab: old = "+res.Old.Label()) {
		t.Errorf("progress does not name the sides:\n%s", progress.String())
	}
}

// TestPrepareNamesSideThatDoesNotBuild: a NEW that does not compile is
// named on the progress output, and Prepare fails before anything is
// measured.
func TestPrepareNamesSideThatDoesNotBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	repo, _ := workmod.Repo(t, workmod.Commit{Steps: 1000, Subject: "work"}, workmod.Commit{Steps: 0, Subject: "work: broken"})
	var progress bytes.Buffer
	_, err := ab.Prepare(t.Context(), ab.Options{Dir: repo, Old: "HEAD~1", New: "HEAD", CacheDir: t.TempDir(), Progress: &progress})
	if err == nil || err.Error() != "new does not build (see above); nothing was measured" {
		t.Errorf("Prepare: %v", err)
	}
	if out := progress.String(); !strings.Contains(out, "perflab ab: new (") || !strings.Contains(out, "does not build:\n    ") || strings.Contains(out, "perflab ab: old (") {
		t.Errorf("progress does not name new alone as not building:\n%s", out)
	}
}

// subGo and subTestGo are a second package of the module, ./sub, whose
// BenchmarkSub no commit changes.
const (
	subGo     = "package sub\n\nimport \"example.com/work\"\n\n// Sub does the work of 2000 steps.\nfunc Sub() uint64 { return work.Work(2000) }\n"
	subTestGo = "package sub\n\nimport \"testing\"\n\nvar sink uint64\n\nfunc BenchmarkSub(b *testing.B) {\n\tfor range b.N {\n\t\tsink = Sub()\n\t}\n}\n"
)

// TestRunPackages compares the module's packages ("./...") in one run:
// every benchmark and paired row names its package, and the change is
// found where it was made.
func TestRunPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	sub := map[string]string{"sub/sub.go": subGo, "sub/sub_test.go": subTestGo}
	repo, _ := workmod.Repo(t, workmod.Commit{Steps: 1000, Subject: "work: 1000 steps", Files: sub}, workmod.Commit{Steps: 10000, Subject: "work: 10000 steps"})
	res, progress, err := runAB(t, ab.Options{
		Dir: repo, Old: "HEAD~1", New: "HEAD", Packages: []string{"./..."}, Rounds: 10, Benchtime: "20ms", Layout: engine.LayoutFixed, NoProfile: true,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	var full []string
	for _, b := range res.Benchmarks {
		full = append(full, b.FullName())
	}
	if !slices.Equal(full, []string{"BenchmarkWork (.)", "BenchmarkSub (./sub)"}) {
		t.Errorf("benchmarks %q, want each package's", full)
	}
	verdicts := map[string]findings.Change{}
	for _, r := range res.Paired.Rows {
		if r.Unit == "sec/op" {
			verdicts[strings.TrimRight(r.Name, "-0123456789")+" ("+r.Package+")"] = r.Verdict
		}
	}
	// BenchmarkSub's code did not change; its verdict is left to the
	// noise of ten rounds.
	if _, ok := verdicts["BenchmarkSub (./sub)"]; verdicts["BenchmarkWork (.)"] != findings.Slower || !ok || len(verdicts) != 2 {
		t.Errorf("sec/op verdicts %v; want BenchmarkWork slower, and a row of BenchmarkSub", verdicts)
	}
}

// flakyTestGo is a benchmark that panics past its first iteration where
// the file crash.flag is beside it: listed on both sides, it fails in
// every round on the side whose commit added the file.
const flakyTestGo = `package work

import (
	"os"
	"testing"
)

func BenchmarkFlaky(b *testing.B) {
	if _, err := os.Stat("crash.flag"); err == nil && b.N > 1 {
		panic("flaky benchmark crashed")
	}
	for i := 0; i < b.N; i++ {
		Work(100)
	}
}
`

// TestRunPartial: a run in which one side's cell fails is partial; it is
// still compared on what it has, and Run says so with an error.
func TestRunPartial(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	repo, _ := workmod.Repo(t, workmod.Commit{Steps: 1000, Subject: "work", Files: map[string]string{"flaky_test.go": flakyTestGo}},
		workmod.Commit{Steps: 1000, Subject: "crash", Files: map[string]string{"flaky_test.go": flakyTestGo, "crash.flag": "x"}})
	res, progress, err := runAB(t, ab.Options{
		Dir: repo, Old: "HEAD~1", New: "HEAD", Bench: "Work|Flaky", Rounds: 8, Benchtime: "5ms", Layout: engine.LayoutFixed, NoProfile: true,
	})
	if err == nil || !strings.Contains(err.Error(), "is partial") {
		t.Fatalf("Run error %v, want a partial run\n%s", err, progress.String())
	}
	if res == nil || res.Run.Status != "partial" || res.Paired == nil {
		t.Fatalf("result %+v, want a partial run compared", res)
	}
	var rows []string
	for _, r := range res.Paired.Rows {
		if r.Unit == "sec/op" {
			rows = append(rows, r.Name)
		}
	}
	if len(rows) != 1 || !strings.HasPrefix(rows[0], "BenchmarkWork") {
		t.Errorf("sec/op rows %v, want BenchmarkWork's alone", rows)
	}
}

// runAB runs ab.Run with a store, cache and artifacts of a temporary
// directory, returning its progress beside its result.
func runAB(t *testing.T, opt ab.Options) (*ab.Result, *bytes.Buffer, error) {
	t.Helper()
	tmp, db := workmod.Store(t)
	var progress bytes.Buffer
	opt.DB, opt.CacheDir, opt.ArtifactDir, opt.Progress = db, filepath.Join(tmp, "cache"), filepath.Join(tmp, "runs"), &progress
	res, err := ab.Run(t.Context(), opt)
	return res, &progress, err
}
