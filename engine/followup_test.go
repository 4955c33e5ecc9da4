package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/spec"
)

// atThreshold is a claim whose check sits on its own threshold: at n=4
// variant b costs 100+5·4 = 120 steps and a 40·4 = 160, a ratio of 0.75,
// so the first look (which needs all six rounds below 0.75) almost never
// decides it.
const atThreshold = `
[[claim]]
id = "T3"
text = "b costs three quarters of a at n=4"
[[claim.check]]
kind = "ratio"
where = "n=4,config=default"
num = "variant=b"
den = "variant=a"
op = "<"
value = 0.75
`

// tinyWithClaim copies the tiny experiment with extra claims appended to
// its spec, so the stored spec text holds them too.
func tinyWithClaim(t *testing.T, claims string) *spec.Spec {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "tiny_test.go", "spec.toml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tiny", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "spec.toml" {
			b = append(b, claims...)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := spec.Load(filepath.Join(dir, "spec.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFollowUpRounds runs the tiny experiment with a check at its
// threshold: after the 6 planned rounds the first look leaves it
// undecided, so its two cells (and only they) run follow-up rounds, the
// run is marked for two looks, and the analysis judges T1 at the first
// look and T3 at the second while every other table reads rounds 1–6.
// With NoFollowUp the same run stops at 6 rounds and is judged once.
func TestFollowUpRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	ctx := context.Background()
	db := openStore(t)
	s := tinyWithClaim(t, atThreshold)
	var progress bytes.Buffer
	res, err := Run(ctx, Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, NoiseRuns: 3, Progress: &progress, NoProfile: true,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	out := progress.String()
	if !strings.Contains(out, "first look after 6 rounds: 1 of 2 testable counted checks undecided (T3.1)") {
		t.Fatalf("progress does not report the first look leaving T3.1 open:\n%s", out)
	}
	if res.Status != "complete" || res.RoundsDone <= 6 || res.RoundsDone > 6+followUpFactor*6 || res.RoundsTotal != res.RoundsDone {
		t.Fatalf("result = %+v, want a complete run of 7 to %d rounds\n%s", res, 6+followUpFactor*6, out)
	}
	results, err := db.Results(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		round := r.GetConfig("round")
		if len(round) == 1 && round[0] >= '1' && round[0] <= '6' {
			continue
		}
		if name := string(r.Name.Full()); r.GetConfig("config") != "default" || !strings.Contains(name+"-", "/n=4-") {
			t.Errorf("follow-up round %s ran %s @%s, which no open check reads", round, name, r.GetConfig("config"))
		}
	}
	run, err := db.GetRun(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if got := findings.SamplingOf(run).FirstLook; got != 6 {
		t.Fatalf("stored first look = %d, want 6 (note %s)", got, run.Note)
	}
	f, err := findings.Load(ctx, db, res.RunID, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f.Looks == "" || f.RoundsDone != 6 || f.FollowUp.Rounds != res.RoundsDone-6 || f.FollowUp.Results != 2 {
		t.Errorf("findings: looks %q, rounds %d, follow-up %+v; want the two-look rule, 6 planned rounds and %d follow-up rounds of 2 cells",
			f.Looks, f.RoundsDone, f.FollowUp, res.RoundsDone-6)
	}
	looks := map[string]claim.CheckResult{}
	for _, v := range f.Verdicts {
		if len(v.Checks) > 0 {
			looks[v.ID] = v.Checks[0]
		}
	}
	if c := looks["T1"]; c.Look != 1 || c.Verdict != claim.Reproduced {
		t.Errorf("T1 (b/a = 0.28 < 1) = %s at look %d, want reproduced at the first look", c.Verdict, c.Look)
	}
	if c := looks["T3"]; c.Look != 2 || !strings.Contains(c.Measured, "second look") {
		t.Errorf("T3 = %s at look %d (%s), want judged at the second look", c.Verdict, c.Look, c.Measured)
	}

	progress.Reset()
	res, err = Run(ctx, Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, NoiseRuns: 3, Progress: &progress, NoProfile: true, NoFollowUp: true,
	})
	if err != nil {
		t.Fatalf("Run with NoFollowUp: %v\n%s", err, progress.String())
	}
	run, err = db.GetRun(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if res.RoundsDone != 6 || findings.SamplingOf(run).FirstLook != 0 || strings.Contains(progress.String(), "first look") {
		t.Errorf("NoFollowUp: %d rounds, first look %d; want exactly 6 rounds judged once\n%s", res.RoundsDone, findings.SamplingOf(run).FirstLook, progress.String())
	}
}
