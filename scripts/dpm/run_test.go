package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakePerflab writes a program that stands in for perflab ab: it prints
// a recorded output (testdata/ab) to standard output and a recorded log
// to standard error, and exits with the code given.
func fakePerflab(t *testing.T, stdout, stderr string, code int) string {
	t.Helper()
	abs := func(name string) string {
		if name == "" {
			return "/dev/null"
		}
		p, err := filepath.Abs(filepath.Join("testdata", "ab", name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	script := filepath.Join(t.TempDir(), "perflab")
	text := "#!/bin/sh\ncat '" + abs(stdout) + "'\ncat '" + abs(stderr) + "' >&2\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

// TestPerflabTrial runs trials on recorded perflab outputs: the exit code
// and the output together make a gate's outcome, a refusal, or an error.
func TestPerflabTrial(t *testing.T) {
	s := subject{Name: "demo/slow60", Module: "demo", Change: "slow60", Target: 0.6, Dir: t.TempDir(),
		Old: "HEAD~1", New: "HEAD", Bench: ".", Truth: []truth{{Bench: "BenchmarkWork", Change: 0.6}}}
	for _, c := range []struct {
		name, stdout, stderr string
		code                 int
		gate                 string
		wantErr, refused     string
		pass                 *bool
		verdict              string
	}{
		{name: "decided", stdout: "base-demo-gate-fail.json", code: 0, verdict: slower},
		{name: "gate fails", stdout: "base-demo-gate-fail.json", code: 1, gate: "sec/op>+5%", pass: ptr(false), verdict: slower},
		{name: "gate passes", stdout: "base-demo.json", code: 0, gate: "sec/op>+5%", pass: ptr(true), verdict: undecided},
		{name: "refused", stderr: "refused-base.log", code: 1, refused: "a budget of 20s", verdict: undecided},
		{name: "exit 1, no row beyond the gate", stdout: "base-demo.json", code: 1, gate: "sec/op>+5%", wantErr: "no row beyond the gate"},
		{name: "usage error", stderr: "base-demo.log", code: 2, wantErr: "perflab ab"},
		{name: "exit 1 without a gate", stdout: "base-demo.json", code: 1, wantErr: "exit status 1"},
		{name: "other benchmarks", stdout: "main-slow10.json", code: 0, wantErr: "not a benchmark of the manifest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			r := &runner{dir: dir, logs: dir}
			tl := tool{Label: "fake", Path: fakePerflab(t, c.stdout, c.stderr, c.code)}
			tr := r.run(context.Background(), tl, s, 20*time.Second, c.gate)
			if c.wantErr != "" {
				if !strings.Contains(tr.Err, c.wantErr) {
					t.Fatalf("error %q, want one with %q", tr.Err, c.wantErr)
				}
				return
			}
			if tr.Err != "" {
				t.Fatalf("error %q", tr.Err)
			}
			if tr.Exit != c.code || !strings.HasPrefix(tr.Refused, c.refused) || (tr.Refused == "") != (c.refused == "") {
				t.Errorf("exit %d, refused %q; want %d, %q", tr.Exit, tr.Refused, c.code, c.refused)
			}
			if (tr.GatePass == nil) != (c.pass == nil) || tr.GatePass != nil && *tr.GatePass != *c.pass {
				t.Errorf("gate pass %v, want %v", deref(tr.GatePass), deref(c.pass))
			}
			if len(tr.Rows) != 1 || tr.Rows[0].Verdict != c.verdict || tr.Rows[0].Truth != 0.6 {
				t.Errorf("rows %+v, want one %s with truth 0.6", tr.Rows, c.verdict)
			}
			want := []string{tl.Path, "ab", "HEAD~1", "HEAD", ".", "-bench", ".", "--json", "--budget", "20s"}
			if c.gate != "" {
				want = append(want, "--fail-on", c.gate)
			}
			if strings.Join(tr.Command, " ") != strings.Join(want, " ") {
				t.Errorf("command %q, want %q", tr.Command, want)
			}
			if log, err := os.ReadFile(tr.Log); err != nil || c.stderr != "" && len(log) == 0 {
				t.Errorf("log %s: %v, %d bytes", tr.Log, err, len(log))
			}
		})
	}
}

func ptr(b bool) *bool { return &b }

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// TestBenchstatTrial runs the baseline on a real two-commit module:
// both revisions built, four alternating go test processes a side, and
// benchstat comparing them.
func TestBenchstatTrial(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module")
	}
	bs, err := findBenchstat(context.Background(), "")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	g := &repo{ctx: context.Background(), dir: dir}
	g.git("init", "-q", "-b", "main")
	work := "package demo\n\nfunc Work(n int) (h uint64) {\n\tfor i := 0; i < n; i++ {\n\t\th = (h ^ uint64(i)) * 1099511628211\n\t}\n\treturn h\n}\n"
	bench := "package demo\n\nimport \"testing\"\n\nvar sink uint64\n\nfunc BenchmarkABWork(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += Work(%d)\n\t}\n}\n"
	g.commit("demo", map[string]string{"go.mod": "module example.com/demo\n\ngo 1.21\n", "work.go": work, "work_test.go": strings.Replace(bench, "%d", "1000", 1)})
	g.git("tag", "old")
	g.commit("demo: more work", map[string]string{"work_test.go": strings.Replace(bench, "%d", "1500", 1)})
	g.git("tag", "new")
	if g.err != nil {
		t.Fatal(g.err)
	}
	s := subject{Name: "demo/slow50", Module: "demo", Change: "slow50", Target: 0.5, Dir: dir, Old: "old", New: "new", Bench: benchRegex,
		Truth: []truth{{Bench: "BenchmarkABWork", Change: 0.5}}}
	logs := t.TempDir()
	r := &runner{dir: t.TempDir(), logs: logs, benchtime: "2000x", defaultCount: 4}
	tr := r.run(context.Background(), tool{Label: "benchstat", Path: bs, Benchstat: true}, s, 0, "sec/op>+5%")
	if tr.Err != "" {
		t.Fatal(tr.Err)
	}
	if tr.Rounds != 4 || len(tr.Rows) != 1 || tr.Rows[0].Name != "BenchmarkABWork" || tr.Rows[0].N != 4 || tr.Rows[0].P == nil || tr.Rows[0].Ratio == nil {
		t.Fatalf("trial %+v, want 4 rounds and one row with 4 samples, a p-value and a ratio", tr)
	}
	if tr.GatePass == nil {
		t.Error("a gated trial with no gate outcome")
	}
	for _, side := range []string{"old", "new"} {
		files, _ := filepath.Glob(filepath.Join(logs, "*."+side+".txt"))
		if len(files) != 1 {
			t.Fatalf("%s results: %v, want one file", side, files)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), "BenchmarkABWork"); n != 4 {
			t.Errorf("%s: %d results, want 4", files[0], n)
		}
	}
}
