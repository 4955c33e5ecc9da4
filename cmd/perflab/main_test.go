package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/internal/testrun"
)

func perflab(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return o.String(), e.String(), code
}

func TestUsage(t *testing.T) {
	_, stderr, code := perflab(t)
	if code != 2 || !strings.Contains(stderr, "Usage:") {
		t.Errorf("no arguments: code %d, stderr %q; want usage and exit 2", code, stderr)
	}
	for _, c := range commands {
		out, _, code := perflab(t, "help", c.name)
		if code != 0 || !strings.Contains(out, "Example") || !strings.Contains(out, "perflab "+c.name) {
			t.Errorf("help %s: code %d, output lacks an example:\n%s", c.name, code, out)
		}
	}
	if _, stderr, code := perflab(t, "frobnicate"); code != 2 || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: code %d, stderr %q", code, stderr)
	}
	if _, stderr, code := perflab(t, "run", "--rounds", "x"); code != 2 || !strings.Contains(stderr, "invalid value") {
		t.Errorf("bad flag: code %d, stderr %q", code, stderr)
	}
}

func TestList(t *testing.T) {
	out, _, code := perflab(t, "list")
	if code != 0 {
		t.Fatalf("list exited %d", code)
	}
	for _, want := range []string{"poolreuse", "axis reuse", "claim C3", "config default"} {
		if !strings.Contains(out, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}
}

func TestBadSpecRecordsNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	_, stderr, code := perflab(t, "run", filepath.Join("testdata", "bad.toml"), "--db", db)
	if code != 1 || !strings.Contains(stderr, "bad.toml:11:") || !strings.Contains(stderr, "benchtim") {
		t.Errorf("code %d, stderr %q; want exit 1 and an error at bad.toml:11", code, stderr)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a database was created for a bad spec (stat: %v)", err)
	}
}

// TestRunReportExportAnalyze runs the tiny experiment end to end through
// the CLI and checks what each later command makes of the stored run.
func TestRunReportExportAnalyze(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "perflab.db")
	spec := filepath.Join("..", "..", "engine", "testdata", "tiny", "spec.toml")
	out, stderr, code := perflab(t, "run", spec, "--quick", "--db", db, "--out", filepath.Join(dir, "runs"),
		"--cache", filepath.Join(dir, "cache"), "--no-profile", "--seed", "5")
	if code != 0 {
		t.Fatalf("run exited %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"round 6/6 stored", "noise before"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{"T1", "T2", "not testable", "report: "} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q:\n%s", want, out)
		}
	}
	report, err := os.ReadFile(filepath.Join(dir, "runs", "run-1", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Claims", "## Environment", "## sec/op", "| series \\ n |", "## Crossovers along n", "variant=b"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	// export → parse: every sample of the 6 planned rounds comes back. A
	// first look that leaves T1 open (a busy machine can reverse one of
	// its six rounds) adds follow-up rounds of T1's two cells, which
	// serve the claim checks alone (TestExportReadsPlannedRounds).
	exported, _, code := perflab(t, "export", "1", "--db", db)
	if code != 0 {
		t.Fatalf("export exited %d", code)
	}
	res, err := gotest.Parse(strings.NewReader(exported), "export")
	if err != nil {
		t.Fatalf("export is not clean benchfmt: %v", err)
	}
	if len(res) != 2*3*2*6 {
		t.Errorf("export holds %d results, want %d", len(res), 2*3*2*6)
	}
	if !strings.Contains(exported, "config: gogc50") || !strings.Contains(exported, "goversion: ") {
		t.Errorf("export lacks config keys:\n%.500s", exported)
	}

	// analyze --json on the stored run.
	js, stderr, code := perflab(t, "analyze", "latest", "--db", db, "--axis", "n", "--by", "variant", "--json")
	if code != 0 {
		t.Fatalf("analyze exited %d: %s", code, stderr)
	}
	var parsed struct {
		Knees      []map[string]any `json:"knees"`
		Crossovers []struct {
			Unit, Axis, A, B string
			X, Lo, Hi        float64
		} `json:"crossovers"`
		Ratios []struct {
			Unit, By, Value, Baseline string
			Points                    []struct {
				X             string
				Rounds        int
				Ratio, Lo, Hi *float64
			}
		} `json:"ratios"`
	}
	if err := json.Unmarshal([]byte(js), &parsed); err != nil {
		t.Fatalf("analyze --json: %v\n%s", err, js)
	}
	if parsed.Knees == nil || parsed.Crossovers == nil {
		t.Errorf("knees and crossovers must be lists, even empty: %s", js)
	}
	// The crossing is judged on steps/op, the count the benchmark reports:
	// in sec/op, b/a at n=4 is 0.75, which one round under a busy
	// neighbour can reverse, and then n=4 is not significant and the
	// bracket is n=1 to n=16.
	found := false
	for _, c := range parsed.Crossovers {
		if c.Unit == "steps/op" && c.Axis == "n" && c.Lo == 1 && c.Hi == 4 && c.X > 1.5 && c.X < 4 {
			found = true
		}
	}
	if !found {
		t.Errorf("no steps/op crossover near n=2.9 between n=1 and n=4 (a costs 40n steps, b 100+5n):\n%s", js)
	}
	// By how much: b's sec/op over a's at every n, paired within rounds.
	ratios := 0
	for _, c := range parsed.Ratios {
		if c.Unit != "sec/op" || c.By != "variant" {
			continue
		}
		for _, p := range c.Points {
			if p.Rounds == 6 && p.Ratio != nil && p.Lo != nil && p.Hi != nil && *p.Lo <= *p.Ratio && *p.Ratio <= *p.Hi {
				ratios++
			}
		}
	}
	if ratios < 3 {
		t.Errorf("analyze --json gives %d sec/op ratios with intervals, want one per n and config:\n%s", ratios, js)
	}

	t.Run("benchstat agrees", func(t *testing.T) {
		checkBenchstat(t, exported, db)
	})
}

// TestExportReadsPlannedRounds exports a stored run with follow-up rounds
// (two cells measured 1.5 times slower in 4 rounds after the 6 planned):
// the export holds the planned rounds alone, as every table of the run
// does, so benchstat's medians of it are the report's.
func TestExportReadsPlannedRounds(t *testing.T) {
	db := syntheticDB(t, testrun.Options{Seed: 7, FollowUp: 4})
	exported, stderr, code := perflab(t, "export", "1", "--db", db)
	if code != 0 {
		t.Fatalf("export exited %d: %s", code, stderr)
	}
	res, err := gotest.Parse(strings.NewReader(exported), "export")
	if err != nil {
		t.Fatalf("export is not clean benchfmt: %v", err)
	}
	if want := len(testrun.Variants) * len(testrun.Reuse) * 6; len(res) != want {
		t.Errorf("export holds %d results, want %d (every cell in each of the 6 planned rounds)", len(res), want)
	}
	checkBenchstat(t, exported, db)
}

// checkBenchstat runs benchstat (from the module's own golang.org/x/perf) on
// the export and compares its medians with perflab's.
func checkBenchstat(t *testing.T, exported, db string) {
	file := filepath.Join(t.TempDir(), "export.txt")
	if err := os.WriteFile(file, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "golang.org/x/perf/cmd/benchstat", "-format", "csv", file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	csvOut, err := cmd.Output()
	if err != nil {
		t.Skipf("benchstat unavailable: %v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "warning") || strings.Contains(string(csvOut), "need >=") {
		t.Errorf("benchstat warned:\n%s\n%s", stderr.String(), csvOut)
	}
	// perflab's medians, by config and benchmark name without the Benchmark prefix.
	in, err := loadRun(common{db: db, alpha: 0.05}, []string{"latest"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, s := range in.Samples {
		if s.Unit == "sec/op" {
			want[s.Config+"|"+strings.TrimPrefix(s.Name.Full, "Benchmark")] = analysis.Summarize(s.Values, in.Opt).Center
		}
	}
	// benchstat CSV: tables per config; rows "name,sec/op,CI" under a header naming the config.
	r := csv.NewReader(bytes.NewReader(csvOut))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("benchstat csv: %v\n%s", err, csvOut)
	}
	config, unit, checked := "", "", 0
	for _, row := range rows {
		if len(row) == 1 && strings.HasPrefix(row[0], "config: ") {
			config = strings.TrimPrefix(row[0], "config: ")
			continue
		}
		if len(row) >= 3 && row[0] == "" && row[2] == "CI" {
			unit = row[1]
			continue
		}
		if len(row) < 2 || config == "" || unit != "sec/op" {
			continue
		}
		v, err := strconv.ParseFloat(row[1], 64)
		if err != nil {
			continue
		}
		w, ok := want[config+"|"+row[0]]
		if !ok {
			continue
		}
		checked++
		if d := (v - w) / w; d > 0.01 || d < -0.01 {
			t.Errorf("%s @%s: benchstat median %g, perflab %g", row[0], config, v, w)
		}
	}
	if checked != len(want) {
		t.Errorf("compared %d medians with benchstat, want %d\n%s", checked, len(want), csvOut)
	}
}
