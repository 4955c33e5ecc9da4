package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/ab"
	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/store"
)

// TestEngineOptionsCarryEveryFlag parses the engine flags of run and
// bench and checks that each reaches the engine's options through the one
// builder (ab's reach them through ab.Options: TestABOptionsCarryEveryFlag).
func TestEngineOptionsCarryEveryFlag(t *testing.T) {
	common := []string{"--seed", "7", "--rounds", "9", "--benchtime", "5ms", "--budget", "2m", "--no-profile", "-v",
		"--out", "outdir", "--cache", "cachedir", "--measure", "instructions", "--precision", "2%", "--max-rounds", "40", "--unit", "cpu-sec/op", "--alpha", "0.01"}
	var rf runFlags
	var bf benchFlags
	tests := []struct {
		name  string
		fl    interface{ declare(*flag.FlagSet) }
		f     *runFlags
		extra []string
	}{
		{"run", &rf, &rf, []string{"--no-follow-up", "--new-run"}},
		{"bench", &bf, &bf.runFlags, nil},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet(tc.name, flag.ContinueOnError)
		tc.fl.declare(fs)
		if err := fs.Parse(append(common, tc.extra...)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var progress bytes.Buffer
		opt := tc.f.engineOptions(nil, "quick", nil, &progress)
		want := engine.Options{Mode: "quick", ArtifactDir: "outdir", CacheDir: filepath.Join("cachedir", "bin"), Seed: 7, Rounds: 9, Benchtime: "5ms",
			Budget: 2 * time.Minute, Measure: "instructions", NoProfile: true, Verbose: true, Precision: 0.02, MaxRounds: 40, Unit: "cpu-sec/op",
			NoFollowUp: tc.extra != nil, NewRunIfChanged: tc.extra != nil, Alpha: 0.01}
		got := opt
		got.Progress, got.Judge, got.Repeat, got.ChooseRepeats = nil, nil, nil, nil
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("%s: options\n%+v\nwant\n%+v", tc.name, got, want)
		}
		if opt.Progress != &progress || opt.Judge == nil || opt.Repeat == nil || opt.ChooseRepeats == nil {
			t.Errorf("%s: progress %v, judge %v, repetition statistic set %v, choice of repetitions set %v; want all", tc.name, opt.Progress, opt.Judge, opt.Repeat != nil, opt.ChooseRepeats != nil)
		}
	}
}

// TestABOptionsCarryEveryFlag parses ab's flags and checks that each
// reaches the comparison's options, -v included.
func TestABOptionsCarryEveryFlag(t *testing.T) {
	var f abFlags
	fs := flag.NewFlagSet("ab", flag.ContinueOnError)
	f.declare(fs)
	args := []string{"-C", "mod", "-bench", "Work", "--seed", "7", "--rounds", "9", "--benchtime", "5ms", "--budget", "2m", "--no-profile", "-v",
		"--out", "outdir", "--cache", "cachedir", "--measure", "instructions", "--precision", "2%", "--max-rounds", "40", "--unit", "cpu-sec/op",
		"--cpu", "1,4", "--alpha", "0.1", "--fail-on", "sec/op>+5%", "--layout", "fixed", "--config", "base", "--config", "off:GOGC=off", "--funcalign", "128"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	got, err := f.options("HEAD~1", "", []string{"./codec"}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if got.Progress != &progress || len(got.Rules) != 1 || got.Rules[0].Unit != "sec/op" || got.Rules[0].Pct != 5 {
		t.Errorf("progress %v, rules %v; want the writer given and sec/op>+5%%", got.Progress, got.Rules)
	}
	got.Progress, got.Rules = nil, nil
	configs := [2]discover.Config{{Name: "base"}, {Name: "off", Env: []string{"GOGC=off"}}}
	want := ab.Options{Dir: "mod", Old: "HEAD~1", Packages: []string{"./codec"}, Bench: "Work", Configs: configs,
		Rounds: 9, Benchtime: "5ms", CPU: []int{1, 4}, Budget: 2 * time.Minute, Precision: 0.02, MaxRounds: 40, Unit: "cpu-sec/op",
		Layout: "fixed", FuncAlign: 128, Measure: "instructions", NoProfile: true, Seed: 7, Verbose: true, Alpha: 0.1, CacheDir: "cachedir", ArtifactDir: "outdir"}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("options\n%+v\nwant\n%+v", got, want)
	}
	// ab profiles only when asked: the budget goes to the rounds.
	for _, tt := range []struct {
		args      []string
		noProfile bool
	}{{nil, true}, {[]string{"--profile"}, false}, {[]string{"--profile", "--no-profile"}, true}} {
		var f abFlags
		fs := flag.NewFlagSet("ab", flag.ContinueOnError)
		f.declare(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		got, err := f.options("HEAD~1", "", []string{"."}, &progress)
		if err != nil || got.NoProfile != tt.noProfile {
			t.Errorf("ab %q: NoProfile = %v (%v), want %v", tt.args, got.NoProfile, err, tt.noProfile)
		}
	}
}

// TestSequentialSummaryInReport samples a throwaway module's benchmarks
// sequentially: the summary printed at the end of the run says what the
// run's report says, line for line, and how the run stopped is stored.
func TestSequentialSummaryInReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	mod := throwaway(t)
	tmp := t.TempDir()
	db := filepath.Join(tmp, "perflab.db")
	out, stderr, code := perflab(t, "bench", "-C", mod, "./sum", "-bench", "Sum", "--benchtime", "2000x", "--max-rounds", "10",
		"--db", db, "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"), "--no-profile")
	if code != 0 {
		t.Fatalf("bench exited %d\n%s\n%s", code, out, stderr)
	}
	i := strings.Index(stderr, "perflab: sequential sampling stopped after round ")
	if i < 0 {
		t.Fatalf("no sequential summary at the end of the run:\n%s", stderr)
	}
	var lines []string
	for _, l := range strings.Split(stderr[i:], "\n") {
		if !strings.HasPrefix(l, "  ") && len(lines) > 0 && !strings.HasPrefix(l, "perflab: wall time") {
			break
		}
		lines = append(lines, l)
	}
	md, _, code := perflab(t, "report", "latest", "--db", db)
	if code != 0 {
		t.Fatalf("report exited %d", code)
	}
	if !strings.Contains(md, "## Sequential sampling") {
		t.Fatalf("the report has no sequential section:\n%s", md)
	}
	rows := 0
	for _, l := range lines {
		l = strings.TrimPrefix(strings.TrimSpace(l), "perflab: ")
		want := l
		if label, outcome, ok := strings.Cut(l, "  "); ok && !strings.HasPrefix(l, "(") {
			want = "| " + label + " | " + strings.TrimSpace(outcome) + " |"
			rows++
		}
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks the summary's %q", want)
		}
	}
	if rows != 3 { // n=100, 1000 and 10000 against n=10
		t.Errorf("the summary has %d rows, want 3:\n%s", rows, strings.Join(lines, "\n"))
	}
	s, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run, err := s.GetRun(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p := run.Plan; !p.Sequential || p.Stop.Round < findings.InitialRounds || p.Stop.Round > 10 || p.Stop.Reason == "" {
		t.Errorf("stored plan %+v: want a sequential run stopped within 8 to 10 rounds, with its reason", p)
	}
}

// twoLooks replaces the tiny spec's claims with claims on steps/op, the
// count its benchmark reports (b/a is 120/160 = 0.75 at n=4 and
// 180/640 ≈ 0.28 at n=16 in every round, whatever the machine's load), so
// the look that decides each check follows from the two-look rule alone.
// T1 (b/a < 1 at n=16) has all six planned rounds beyond its threshold:
// one-sided 1/64, within the first look's α/3 ≈ 0.0167. T3 says b costs
// more than a at n=4 and at n=16: neither check can be reproduced, and a
// contradiction is judged with Holm across the claim's two checks, at
// α/3/2 ≈ 0.0083 at the first look: finer than six rounds can reach
// (1/64), and within reach of seven (1/128) at the second look's 2α/3/2.
// Each open check gets at least one follow-up round: one round of the
// four cells costs a sixth of what they took in the planned rounds, and
// the allowance is at least a fifth of the planned rounds' time and at
// least the lesser of that time and 30 s.
const twoLooks = `
[[claim]]
id = "T1"
text = "b does fewer steps than a at n=16"
[[claim.check]]
kind = "ratio"
unit = "steps/op"
where = "n=16,config=default"
num = "variant=b"
den = "variant=a"
op = "<"
value = 1

[[claim]]
id = "T3"
text = "b does more steps than a at n=4 and n=16"
[[claim.check]]
kind = "ratio"
unit = "steps/op"
where = "n=4,config=default"
num = "variant=b"
den = "variant=a"
op = ">"
value = 1
[[claim.check]]
kind = "ratio"
unit = "steps/op"
where = "n=16,config=default"
num = "variant=b"
den = "variant=a"
op = ">"
value = 1
`

// TestRunFollowUpRounds runs the tiny experiment with a claim the first
// look cannot decide (twoLooks): after the 6 planned rounds its checks are
// open, so their four cells (and only they) run follow-up rounds, and the
// analysis judges T1 at the first look and T3 at the second while every
// other table reads rounds 1–6.
func TestRunFollowUpRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	dir := t.TempDir()
	for _, f := range []string{"go.mod", "tiny_test.go", "spec.toml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "engine", "testdata", "tiny", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "spec.toml" {
			base, _, ok := strings.Cut(string(b), "\n[[claim]]")
			if !ok {
				t.Fatalf("the tiny spec has no claims to replace:\n%s", b)
			}
			b = []byte(base + twoLooks)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(dir, "perflab.db")
	out, stderr, code := perflab(t, "run", filepath.Join(dir, "spec.toml"), "--quick", "--seed", "1", "--no-profile",
		"--db", db, "--out", filepath.Join(dir, "runs"), "--cache", filepath.Join(dir, "cache"))
	if code != 0 {
		t.Fatalf("run exited %d\n%s\n%s", code, out, stderr)
	}
	line := regexp.MustCompile(`first look after 6 rounds: 2 of 3 testable counted checks undecided; follow-up rounds within [^:]+: [0-9]+ for [^\n]*`).FindString(stderr)
	if !strings.Contains(line, "T3.1") || !strings.Contains(line, "T3.2") {
		t.Fatalf("progress does not report the first look leaving T3.1 and T3.2 open:\n%s", stderr)
	}
	s, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := findings.Load(context.Background(), s, 1, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f.Looks == "" || f.RoundsDone != 6 || f.FollowUp.Rounds < 1 || f.FollowUp.Results != 4 {
		t.Errorf("findings: looks %q, rounds %d, follow-up %+v; want the two-look rule, 6 planned rounds and follow-up rounds of 4 cells",
			f.Looks, f.RoundsDone, f.FollowUp)
	}
	looks := map[string]claim.CheckResult{}
	for _, v := range f.Verdicts {
		for i, c := range v.Checks {
			looks[fmt.Sprintf("%s.%d", v.ID, i+1)] = c
		}
	}
	if c := looks["T1.1"]; c.Look != 1 || c.Verdict != claim.Reproduced {
		t.Errorf("T1 (b/a = 0.28 < 1) = %s at look %d, want reproduced at the first look", c.Verdict, c.Look)
	}
	for _, id := range []string{"T3.1", "T3.2"} {
		if c := looks[id]; c.Look != 2 || c.Verdict != claim.Contradicted || !strings.Contains(report.CheckMeasured(c), "second look") {
			t.Errorf("%s (b/a < 0.75 against > 1) = %s at look %d (%s), want contradicted at the second look", id, c.Verdict, c.Look, report.CheckMeasured(c))
		}
	}
}

// TestResumeRefusesPlanFlags: a resumed run keeps its stored plan, so a
// flag that would change the plan is refused by name instead of ignored.
func TestResumeRefusesPlanFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "perflab.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--seed", "3"}, "so --seed would change nothing; drop it"},
		{[]string{"--rounds", "4", "--budget", "1m", "--unit", "cpu-sec/op"}, "so --rounds, --budget, --unit would change nothing; drop them"},
		{[]string{"--quick", "--no-follow-up", "--precision", "1%"}, "--quick, --no-follow-up, --precision"},
	} {
		_, stderr, code := perflab(t, append([]string{"run", "--resume", "1", "--db", db}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("run --resume 1 %s: exit %d, %q; want refused with %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a refused resume touched the database (stat: %v)", err)
	}
}
