package culprit_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perflab/perflab/bisect"
	"github.com/perflab/perflab/culprit"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/internal/workmod"
	"github.com/perflab/perflab/report"
)

// TestFind bisects four commits after GOOD through the API alone: the
// second does not build and the fourth makes BenchmarkWork do four times
// the work. The search skips the broken commit, saying why, finds the
// culprit with its effect in three measuring steps stored as runs, and a
// search resumed from the store measures nothing again.
func TestFind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	repo, hashes := workmod.Repo(t, workmod.Commit{Steps: 1000, Subject: "work: 1000 steps"}, workmod.Commit{Steps: 1000, Subject: "work: comment"},
		workmod.Commit{Steps: 0, Subject: "work: broken"}, workmod.Commit{Steps: 1000, Subject: "work: fixed"}, workmod.Commit{Steps: 4000, Subject: "work: 4000 steps"})
	tmp, db := workmod.Store(t)
	var progress bytes.Buffer
	opt := culprit.Options{Dir: repo, Good: hashes[0], Bad: "main", Bench: "Work", Benchtime: "20ms", MaxRounds: 40, Layout: engine.LayoutFixed,
		DB: db, CacheDir: filepath.Join(tmp, "cache"), ArtifactDir: filepath.Join(tmp, "runs"), Progress: &progress}
	res, err := culprit.Find(t.Context(), opt)
	if err != nil {
		t.Fatalf("Find: %v\n%s", err, progress.String())
	}
	if res.Stop != bisect.Found || res.Culprit != 4 || res.History[res.Culprit].Hash != hashes[4] {
		t.Fatalf("stop %q, culprit %d; want the fourth commit after GOOD found\n%s", res.Stop, res.Culprit, progress.String())
	}
	// Endpoints, then 2 (skipped), 1 and 3.
	if len(res.Steps) != 3 || res.Search.Measured() != 3 || len(res.Search.Records) != 4 {
		t.Errorf("%d measuring steps, %d records; want 3 and 4", len(res.Steps), len(res.Search.Records))
	}
	if len(res.Skips) != 1 || res.Skips[0].Commit != 2 || !strings.HasPrefix(report.BisectWhy(res.Skips[0].Why), "does not build: ./work.go:3:1: syntax error") {
		t.Errorf("skips %+v; want commit 2, which does not build", res.Skips)
	}
	// A planted 4× slowdown: decided (its interval excludes no change),
	// its estimate near 4 even on a loaded machine.
	if !(res.Effect.Lo > 1) || res.Effect.Ratio < 2 || res.Effect.Ratio > 8 {
		t.Errorf("effect at the culprit %+v, want about 4", res.Effect)
	}
	runs, err := db.Runs(t.Context())
	if err != nil || len(runs) != 3 {
		t.Fatalf("%d runs stored (%v), want one per measuring step", len(runs), err)
	}

	opt.Resume = true
	again, err := culprit.Find(t.Context(), opt)
	if err != nil || again.ID != res.ID || again.Culprit != res.Culprit {
		t.Fatalf("resumed: %+v, %v; want bisect %s read back", again, err, res.ID)
	}
	if runs, _ := db.Runs(t.Context()); len(runs) != 3 {
		t.Errorf("the resumed search stored %d runs more", len(runs)-3)
	}
}

// otherPkg is a second package, other, whose BenchmarkWork has the root
// package's name and a fixed cost.
var otherPkg = map[string]string{
	"other/other.go":      "// Package other has work of a fixed cost.\npackage other\n\n// Work runs n steps of a xorshift generator.\nfunc Work(n int) uint64 {\n\tx := uint64(88172645463325252)\n\tfor i := 0; i < n; i++ {\n\t\tx ^= x << 13\n\t\tx ^= x >> 7\n\t\tx ^= x << 17\n\t}\n\treturn x\n}\n",
	"other/other_test.go": "package other\n\nimport \"testing\"\n\nvar sink uint64\n\nfunc BenchmarkWork(b *testing.B) {\n\tfor range b.N {\n\t\tsink = Work(1000)\n\t}\n}\n",
}

// TestFindPackages bisects ./... over a module of two packages whose
// benchmarks share a name: the root package's does four times the work
// from the second commit after GOOD, the other package's never changes.
// Each step runs both packages' test binaries; the two benchmarks stay
// apart, each named with its package, and the geomean of a 4× and a 1×
// finds the culprit.
func TestFindPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	repo, hashes := workmod.Repo(t, workmod.Commit{Steps: 1000, Subject: "work: 1000 steps", Files: otherPkg},
		workmod.Commit{Steps: 1000, Subject: "work: comment"}, workmod.Commit{Steps: 4000, Subject: "work: 4000 steps"})
	tmp, db := workmod.Store(t)
	var progress bytes.Buffer
	opt := culprit.Options{Dir: repo, Good: hashes[0], Bad: "main", Packages: []string{"./..."}, Bench: "Work", Benchtime: "20ms", MaxRounds: 40,
		Layout: engine.LayoutFixed, DB: db, CacheDir: filepath.Join(tmp, "cache"), ArtifactDir: filepath.Join(tmp, "runs"), Progress: &progress}
	res, err := culprit.Find(t.Context(), opt)
	if err != nil {
		t.Fatalf("Find: %v\n%s", err, progress.String())
	}
	if res.Stop != bisect.Found || res.Culprit != 2 || res.History[res.Culprit].Hash != hashes[2] {
		t.Fatalf("stop %q, culprit %d; want the second commit after GOOD found\n%s", res.Stop, res.Culprit, progress.String())
	}
	last := res.Steps[len(res.Steps)-1]
	var names []string
	for _, b := range last.Benches {
		names = append(names, b.Name)
	}
	if len(names) != 2 || !slices.Contains(names, "BenchmarkWork (.)") || !slices.Contains(names, "BenchmarkWork (./other)") {
		t.Fatalf("the last step's benchmarks %q; want BenchmarkWork of each package, apart", names)
	}
	for _, b := range last.Benches {
		t.Logf("%s: BAD/GOOD %.3f [%.3f, %.3f]", b.Name, b.BadGood.Ratio, b.BadGood.Lo, b.BadGood.Hi)
	}
	if !(res.Effect.Lo > 1) || res.Effect.Ratio < 1.4 || res.Effect.Ratio > 4 {
		t.Errorf("effect at the culprit %+v, want about 2 (the geomean of 4 and 1)", res.Effect)
	}
}
