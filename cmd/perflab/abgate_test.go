package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
)

// TestABUsageExitCodes: mistakes in ab's command line exit 2 before
// anything is built, and say where the help is.
func TestABUsageExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, "want OLD"},
		{[]string{"HEAD", "--fail-on", "sec/op>5"}, "must end in '%'"},
		{[]string{"HEAD", "--require-decision"}, "--require-decision goes with --fail-on"},
		{[]string{"HEAD", "--rounds", "-1"}, "--rounds -1: want 1 or more"},
		{[]string{"HEAD", "--cpu", "0"}, "--cpu"},
		{[]string{"HEAD", "--config", "a"}, "--config: give none or two"},
		{[]string{"HEAD", "--no-such-flag"}, "flag provided but not defined"},
	} {
		_, stderr, code := perflab(t, append([]string{"ab"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.err) || !strings.Contains(stderr, `"perflab help ab"`) {
			t.Errorf("ab %v: exit %d, want 2 with %q and the help's name\n%s", tc.args, code, tc.err, stderr)
		}
	}
}

// TestABUndecided: a change of about +1% against a gate at +1% leaves the
// interval of eight rounds around the limit (it misses it only when all
// eight rounds fall on one side of it, about 1% of runs, and then the run
// is measured again, at most twice), so the gate cannot decide: ab prints
// the row as undecided in the table, on stderr, in the Markdown summary
// and in the JSON; it exits 3 under --require-decision and 0 without it.
// (Fewer rounds than an interval needs are refused: TestABTooFewRounds.)
func TestABUndecided(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	repo := abRepo(t, 1010)
	tmp := t.TempDir()
	md := filepath.Join(tmp, "summary.md")
	args := []string{"ab", "HEAD~1", "HEAD", ".", "-C", repo, "-bench", "Work$", "--rounds", "8", "--benchtime", "5ms", "--layout", "fixed",
		"--fail-on", "sec/op>+1%", "--no-profile",
		"--db", filepath.Join(tmp, "perflab.db"), "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache")}
	const words = "undecided: a change below ±"
	// decided says whether a run's interval happened to miss the limit.
	decided := func(stderr string) bool { return !strings.Contains(stderr, "the gate could not decide") }
	var out, stderr string
	var code, runs int // runs: the runs stored so far
	for attempt := 1; attempt <= 3; attempt++ {
		out, stderr, code = perflab(t, append(args, "--require-decision", "--markdown", md)...)
		runs++
		if code == 3 || !decided(stderr) || attempt == 3 {
			break
		}
		t.Logf("attempt %d: all rounds fell on one side of the limit (about 1%% of runs); measuring again", attempt)
	}
	if code != 3 {
		t.Fatalf("ab --require-decision exited %d, want 3\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "BenchmarkWork") || !strings.Contains(out, words) {
		t.Errorf("the table does not say the row is undecided:\n%s", out)
	}
	if !strings.Contains(stderr, "the gate could not decide 1 row(s) of --fail-on sec/op>+1%") || !strings.Contains(stderr, " [sec/op]: ") || !strings.Contains(stderr, "raise --budget") {
		t.Errorf("stderr does not list the undecided row:\n%s", stderr)
	}
	summary, err := os.ReadFile(md)
	if err != nil || !strings.Contains(string(summary), "**Gate `sec/op>+1%`: undecided**") || !strings.Contains(string(summary), "🟡 "+words) ||
		!strings.Contains(string(summary), analysis.PairedMethod) {
		t.Errorf("markdown summary (%v):\n%s", err, summary)
	}

	for attempt := 1; attempt <= 3; attempt++ {
		out, stderr, code = perflab(t, append(args, "--json")...)
		runs++
		if !decided(stderr) || attempt == 3 {
			break
		}
		t.Logf("--json, attempt %d: all rounds fell on one side of the limit (about 1%% of runs); measuring again", attempt)
	}
	var parsed struct {
		Source struct {
			Run    int64 `json:"run"`
			Rounds int   `json:"rounds_run"`
		} `json:"source"`
		Gate      string `json:"gate"`
		Undecided []struct {
			Row     struct{ Name string } `json:"row"`
			Reason  string                `json:"reason"`
			Verdict string                `json:"verdict"`
		} `json:"undecided"`
	}
	if code != 0 {
		t.Fatalf("ab without --require-decision exited %d, want 0\n%s\n%s", code, out, stderr)
	}
	if err := json.Unmarshal([]byte(out), &parsed); err != nil || parsed.Gate != "undecided" || len(parsed.Undecided) != 1 || parsed.Source.Run != int64(runs) || parsed.Source.Rounds != 8 {
		t.Fatalf("ab --json: %+v (%v)\n%s", parsed, err, out)
	}
	if u := parsed.Undecided[0]; !strings.HasPrefix(u.Row.Name, "BenchmarkWork") || u.Reason != "interval holds the limit" || !strings.HasPrefix(u.Verdict, words) {
		t.Errorf("ab --json: undecided %+v", u)
	}
	if !strings.Contains(stderr, "with --require-decision they exit 3") {
		t.Errorf("without --require-decision, stderr does not say how to fail on undecided rows:\n%s", stderr)
	}
}

// TestABTooFewRounds: rounds that cannot give a compared ratio an interval
// are refused before anything is measured, with the rounds that would do
// (here 6 for one row at 95%), on fresh layouts and on one link per side.
func TestABTooFewRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	repo := abRepo(t, 1000)
	for _, layout := range []string{"random", "fixed"} {
		tmp := t.TempDir()
		out, stderr, code := perflab(t, "ab", "HEAD~1", "HEAD", ".", "-C", repo, "-bench", "Work$", "--rounds", "3", "--benchtime", "5ms", "--layout", layout,
			"--no-profile", "--db", filepath.Join(tmp, "perflab.db"), "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"))
		if code != 1 || !strings.Contains(stderr, "first interval needs 6") || !strings.Contains(stderr, "--rounds 6 or more") {
			t.Errorf("--layout %s --rounds 3: exit %d, want 1 naming the rounds that would do\n%s\n%s", layout, code, out, stderr)
		}
	}
}
