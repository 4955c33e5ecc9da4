package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A trial is one tool's run on one subject: a line of the trials file.
type trial struct {
	Seq     int       `json:"seq"`   // order in the session, from 1
	Trial   int       `json:"trial"` // repetition, from 1
	Subject string    `json:"subject"`
	Module  string    `json:"module"`
	Class   string    `json:"class"`  // the change: slow2, slow5, slow10, layout
	Target  float64   `json:"target"` // planted size; 0 for layout-only
	Tool    string    `json:"tool"`   // perflab or benchstat
	Label   string    `json:"label"`  // the binary's label, or benchstat
	Binary  string    `json:"binary,omitempty"`
	SHA256  string    `json:"binary_sha256,omitempty"` // of the perflab binary, so a rebuilt one shows
	Budget  string    `json:"budget"`
	Start   time.Time `json:"start"`
	Wall    float64   `json:"wall_s"`
	Command []string  `json:"command"`
	Exit    int       `json:"exit"`
	Err     string    `json:"error,omitempty"`
	Rounds  int       `json:"rounds"` // perflab's rounds; benchstat's processes per side
	// Refused is perflab's reason for refusing the budget (too small for
	// any interval): a trial that decided nothing, not a failed one.
	Refused string `json:"refused,omitempty"`
	Gate    string `json:"gate,omitempty"` // the gate rule applied
	// GatePass is whether the gate passed: perflab's exit code 0; for
	// benchstat, no row significantly slower by more than the limit.
	GatePass *bool  `json:"gate_pass,omitempty"`
	Rows     []row  `json:"rows"`
	Log      string `json:"log,omitempty"` // the tool's standard error
}

// A tool is a perflab binary to run, or benchstat.
type tool struct {
	Label, Path, SHA256 string
	Benchstat           bool
}

func cmdRun(ctx context.Context, args []string) error {
	fset := flag.NewFlagSet("run", flag.ExitOnError)
	dir := fset.String("dir", "", "the work `directory` dpm prepare made (required)")
	var binaryList listFlag
	fset.Var(&binaryList, "perflab", "perflab `binaries`, comma-separated or the flag repeated, each PATH or LABEL=PATH; two or more run alternately (required unless only benchstat runs)")
	budgetList := fset.String("budget", "90s", "comma-separated `budgets`, each trial's: perflab ab --budget and the wall time go test + benchstat may spend; \"default\" runs perflab ab without --budget and benchstat on -default-count processes a side")
	defaultCount := fset.Int("default-count", 10, "processes a side for benchstat under -budget default")
	trials := fset.Int("trials", 1, "repetitions of every subject and tool")
	subjects := fset.String("subjects", "*", "comma-separated `patterns` of subjects: module/change ('*/slow*', 'gjson/layout'), or a module or change alone ('bitset', 'layout'), path.Match syntax")
	baseline := fset.Bool("benchstat", true, "also spend each budget on go test -count and benchstat")
	benchstatCmd := fset.String("benchstat-cmd", "", "the benchstat `command` (default: benchstat on PATH or in $(go env GOPATH)/bin)")
	benchtime := fset.String("benchtime", "1s", "-test.benchtime of the go test -count runs")
	gate := fset.String("gate", "sec/op>+5%", "the --fail-on `rule` of the layout-only subjects' trials (\"\" for none)")
	gateAll := fset.Bool("gate-all", false, "apply -gate to the planted subjects too (it changes when perflab stops)")
	out := fset.String("out", "", "the trials `file` to append to (default DIR/trials-DATE.jsonl)")
	fset.Usage = func() {
		fmt.Fprint(fset.Output(), `Usage: dpm run -dir D -perflab [LABEL=]PATH[,...] [-budget 90s[,3m]] [-trials N] [-subjects PATTERNS] [flags]

For every trial and subject, dpm run runs each perflab binary as

    perflab ab dpm-base dpm-CHANGE . -bench '^BenchmarkAB' --budget B --json [--fail-on RULE]

in the subject's repository with PERFLAB_HOME=D/home/LABEL, and then (with
-benchstat) builds both revisions' test binaries and runs them alternately,
one go test -count=1 process per side at a time, for as long as the budget
allows, and compares them with benchstat. The tools' order rotates from one
trial to the next (A B benchstat, B benchstat A, …), so drift of the
machine hits them alike; with several budgets, each trial runs every
budget in turn. The layout-only subjects run with --fail-on RULE
(-gate), whose exit code is the gate's outcome.

Every trial is appended to the trials file as one JSON line as soon as it
ends; Ctrl-C stops the running trial and keeps the others. The scores
print at the end (and with dpm score FILE at any time). It takes about
trials × subjects × tools × (budget + 15 s), summed over the budgets.

Flags:
`)
		fset.PrintDefaults()
	}
	fset.Parse(args)
	budgets, err := parseBudgets(*budgetList)
	binaries := strings.Join(binaryList, ",")
	if *dir == "" || binaries == "" && !*baseline || fset.NArg() > 0 || *trials < 1 || err != nil || *defaultCount < 2 {
		if err != nil {
			fmt.Fprintln(os.Stderr, "dpm run:", err)
		}
		fset.Usage()
		os.Exit(2)
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	man, err := readManifest(abs)
	if err != nil {
		return err
	}
	var tools []tool
	if binaries != "" {
		if tools, err = parseTools(binaries); err != nil {
			return err
		}
	}
	if *baseline {
		bs, err := findBenchstat(ctx, *benchstatCmd)
		if err != nil {
			return err
		}
		tools = append(tools, tool{Label: "benchstat", Path: bs, Benchstat: true})
	}
	subs, err := selectSubjects(man, *subjects)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(abs, "trials-"+time.Now().Format("20060102-150405")+".jsonl")
	}
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	logs := filepath.Join(abs, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return err
	}
	jobs := *trials * len(budgets) * len(subs) * len(tools)
	var estimate time.Duration
	for _, b := range budgets {
		if b == 0 {
			b = 90 * time.Second // a guess at a default's wall time
		}
		estimate += time.Duration(*trials*len(subs)*len(tools)) * (b + 15*time.Second)
	}
	progress("%d trials (%d × %d budgets × %d subjects × %d tools): about %v; trials go to %s",
		jobs, *trials, len(budgets), len(subs), len(tools), estimate.Round(time.Minute), *out)
	r := &runner{dir: abs, logs: logs, benchtime: *benchtime, defaultCount: *defaultCount}
	var recorded []trial
	failed := 0
	seq := 0
	start := time.Now()
	for t := 1; t <= *trials; t++ {
		for _, budget := range budgets {
			for si, s := range subs {
				for k := range tools {
					tl := tools[(k+t-1+si)%len(tools)]
					seq++
					rule := ""
					if !s.planted() || *gateAll {
						rule = *gate
					}
					left := ""
					if seq > 1 {
						per := time.Since(start) / time.Duration(seq-1)
						left = fmt.Sprintf(", about %v left at the pace so far", (per * time.Duration(jobs-seq+1)).Round(time.Second))
					}
					progress("[%d/%d] trial %d, budget %s: %s, %s%s", seq, jobs, t, budgetString(budget), s.Name, tl.Label, left)
					tr := r.run(ctx, tl, s, budget, rule)
					if ctx.Err() != nil {
						progress("interrupted: %d trials recorded in %s; the running one is dropped", len(recorded), *out)
						printScores(os.Stdout, recorded, false)
						return ctx.Err()
					}
					tr.Seq, tr.Trial = seq, t
					line, err := json.Marshal(tr)
					if err != nil {
						return err
					}
					if _, err := f.Write(append(line, '\n')); err != nil {
						return fmt.Errorf("appending to %s: %w", *out, err)
					}
					recorded = append(recorded, tr)
					if tr.Err != "" {
						failed++
						progress("  failed: %s (log %s)", tr.Err, tr.Log)
					} else {
						progress("  %s", summary(tr))
					}
				}
			}
		}
	}
	fmt.Printf("trials: %s\n\n", *out)
	printScores(os.Stdout, recorded, false)
	if failed > 0 {
		return fmt.Errorf("%d of %d trials failed; their errors are in %s", failed, len(recorded), *out)
	}
	return nil
}

// parseBudgets reads -budget: durations or "default", comma-separated; 0
// stands for default.
func parseBudgets(list string) ([]time.Duration, error) {
	var out []time.Duration
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "default" {
			out = append(out, 0)
			continue
		}
		d, err := time.ParseDuration(item)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("-budget %q: want durations such as 90s or 3m, or default", item)
		}
		out = append(out, d)
	}
	return out, nil
}

func budgetString(d time.Duration) string {
	if d == 0 {
		return "default"
	}
	return d.String()
}

// summary is a trial's outcome in a line.
func summary(tr trial) string {
	n := 0
	for _, r := range tr.Rows {
		if decided(r.Verdict) {
			n++
		}
	}
	s := fmt.Sprintf("%d of %d rows decided in %v (%d rounds)", n, len(tr.Rows), time.Duration(tr.Wall*float64(time.Second)).Round(time.Second), tr.Rounds)
	if tr.GatePass != nil {
		s += fmt.Sprintf("; gate %s passed: %v", tr.Gate, *tr.GatePass)
	}
	if tr.Refused != "" {
		s += "; refused the budget: " + tr.Refused
	}
	return s
}

// listFlag is a flag that may be repeated.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseTools reads -perflab: PATH or LABEL=PATH, comma-separated.
func parseTools(list string) ([]tool, error) {
	var tools []tool
	seen := map[string]bool{}
	for i, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		label, p, ok := strings.Cut(item, "=")
		if !ok {
			label, p = filepath.Base(item), item
		}
		if seen[label] || label == "benchstat" {
			label = fmt.Sprintf("%s#%d", label, i+1)
		}
		seen[label] = true
		abs, err := exec.LookPath(p)
		if err != nil {
			return nil, fmt.Errorf("-perflab %s: %w", p, err)
		}
		if abs, err = filepath.Abs(abs); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			return nil, fmt.Errorf("-perflab %s: %w", p, err)
		}
		tools = append(tools, tool{Label: label, Path: abs, SHA256: fmt.Sprintf("%x", sha256.Sum256(data))[:16]})
	}
	if len(tools) == 0 {
		return nil, errors.New("-perflab names no binary")
	}
	return tools, nil
}

// findBenchstat returns the benchstat command to run.
func findBenchstat(ctx context.Context, given string) (string, error) {
	if given != "" {
		return exec.LookPath(given)
	}
	if p, err := exec.LookPath("benchstat"); err == nil {
		return p, nil
	}
	if gopath, err := output(ctx, "", nil, "go", "env", "GOPATH"); err == nil {
		p := filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "bin", "benchstat")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("benchstat not found: install it with `go install golang.org/x/perf/cmd/benchstat@latest`, or pass -benchstat-cmd PATH, or -benchstat=false")
}

// selectSubjects returns the manifest's subjects matching any pattern: a
// pattern with a slash matches module/change, one without matches the
// module or the change (path.Match syntax).
func selectSubjects(m *manifest, patterns string) ([]subject, error) {
	var out []subject
	for _, s := range m.Subjects {
		for _, p := range strings.Split(patterns, ",") {
			p = strings.TrimSpace(p)
			var ok bool
			var err error
			if strings.Contains(p, "/") {
				ok, err = path.Match(p, s.Name)
			} else if ok, err = path.Match(p, s.Module); err == nil && !ok {
				ok, err = path.Match(p, s.Change)
			}
			if err != nil {
				return nil, fmt.Errorf("-subjects %q: %w", p, err)
			}
			if ok {
				out = append(out, s)
				break
			}
		}
	}
	if len(out) == 0 {
		var names []string
		for _, s := range m.Subjects {
			names = append(names, s.Name)
		}
		return nil, fmt.Errorf("-subjects %q matches none of %s", patterns, strings.Join(names, ", "))
	}
	return out, nil
}

// A runner runs trials.
type runner struct {
	dir, logs    string
	benchtime    string
	defaultCount int // benchstat's processes a side under the default budget
	n            int
}

// run runs one trial; its error, if any, is in the trial.
func (r *runner) run(ctx context.Context, tl tool, s subject, budget time.Duration, rule string) trial {
	r.n++
	tr := trial{
		Subject: s.Name, Module: s.Module, Class: s.Change, Target: s.Target,
		Label: tl.Label, Binary: tl.Path, SHA256: tl.SHA256, Budget: budgetString(budget), Start: time.Now().UTC(), Gate: rule,
		Log: filepath.Join(r.logs, fmt.Sprintf("%s-%d-%s-%s.log", time.Now().Format("20060102-150405"), r.n, strings.ReplaceAll(s.Name, "/", "-"), sanitize(tl.Label))),
	}
	var err error
	if tl.Benchstat {
		tr.Tool = "benchstat"
		err = r.benchstat(ctx, tl, s, budget, &tr)
	} else {
		tr.Tool = "perflab"
		err = r.perflab(ctx, tl, s, budget, &tr)
	}
	tr.Wall = time.Since(tr.Start).Seconds()
	if err != nil {
		tr.Err = err.Error()
	}
	truths := map[string]float64{}
	for _, t := range s.Truth {
		truths[t.Bench] = t.Change
	}
	for i := range tr.Rows {
		if t, ok := truths[tr.Rows[i].Name]; ok {
			tr.Rows[i].Truth = t
		} else if tr.Err == "" {
			tr.Err = fmt.Sprintf("row %s is not a benchmark of the manifest", tr.Rows[i].Name)
		}
	}
	if tr.Err == "" && len(tr.Rows) != len(s.Truth) {
		tr.Err = fmt.Sprintf("%d sec/op rows, the manifest has %d benchmarks", len(tr.Rows), len(s.Truth))
	}
	return tr
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '=' {
			return '_'
		}
		return r
	}, s)
}

// perflab runs perflab ab on the subject.
func (r *runner) perflab(ctx context.Context, tl tool, s subject, budget time.Duration, tr *trial) error {
	home := filepath.Join(r.dir, "home", sanitize(tl.Label))
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	args := []string{"ab", s.Old, s.New, ".", "-bench", s.Bench, "--json"}
	if budget > 0 {
		args = append(args, "--budget", budget.String())
	}
	if tr.Gate != "" {
		args = append(args, "--fail-on", tr.Gate)
	}
	tr.Command = append([]string{tl.Path}, args...)
	logf, err := os.Create(tr.Log)
	if err != nil {
		return err
	}
	defer logf.Close()
	var stdout strings.Builder
	cmd := command(ctx, s.Dir, tl.Path, args...)
	cmd.Env = append(os.Environ(), "PERFLAB_HOME="+home)
	cmd.Stdout, cmd.Stderr = &stdout, logf
	runErr := cmd.Run()
	tr.Exit = cmd.ProcessState.ExitCode()
	if tr.Exit == 1 && strings.TrimSpace(stdout.String()) == "" {
		if log, err := os.ReadFile(tr.Log); err == nil {
			if why := refused(log); why != "" {
				tr.Refused = why
				for _, t := range s.Truth {
					tr.Rows = append(tr.Rows, row{Name: t.Bench, Verdict: undecided})
				}
				return nil
			}
		}
	}
	out, err := parseAB([]byte(stdout.String()))
	if err != nil {
		if runErr != nil {
			return fmt.Errorf("perflab ab: %v; %v", runErr, err)
		}
		return err
	}
	tr.Rows, tr.Rounds = out.Rows, out.Rounds
	if tr.Gate != "" {
		// Exit 0: no row beyond the limit. Exit 1 with rows beyond it:
		// the gate failed. Anything else is a failed run.
		pass := tr.Exit == 0
		if !pass && !(tr.Exit == 1 && out.Fails > 0) {
			return fmt.Errorf("perflab ab exited %d with no row beyond the gate (see %s)", tr.Exit, tr.Log)
		}
		tr.GatePass = &pass
	} else if runErr != nil {
		return fmt.Errorf("perflab ab: %v (see %s)", runErr, tr.Log)
	}
	return nil
}

// command is exec.CommandContext that interrupts the process (so perflab
// stores what it has) and kills it only if it has not ended a while later.
func command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 30 * time.Second
	return cmd
}

// benchstat spends the budget on go test -count=1 processes of both
// revisions, alternately, and compares them with benchstat. Under the
// default budget (0) it runs defaultCount processes a side.
func (r *runner) benchstat(ctx context.Context, tl tool, s subject, budget time.Duration, tr *trial) error {
	if err := os.MkdirAll(filepath.Join(r.dir, "home"), 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(filepath.Join(r.dir, "home"), "benchstat-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	logf, err := os.Create(tr.Log)
	if err != nil {
		return err
	}
	defer logf.Close()
	deadline := tr.Start.Add(budget)
	var bins, files [2]string
	for i, rev := range []string{s.Old, s.New} {
		tree := filepath.Join(work, fmt.Sprint(i))
		if err := os.MkdirAll(tree, 0o755); err != nil {
			return err
		}
		if err := exportRev(ctx, s.Dir, rev, tree); err != nil {
			return err
		}
		bins[i] = filepath.Join(tree, "bench.test")
		if _, err := output(ctx, tree, nil, "go", "test", "-c", "-o", bins[i], "."); err != nil {
			return fmt.Errorf("building %s: %w", rev, err)
		}
		files[i] = filepath.Join(r.logs, fmt.Sprintf("%s.%s.txt", strings.TrimSuffix(filepath.Base(tr.Log), ".log"), []string{"old", "new"}[i]))
	}
	tr.Command = []string{"go", "test", "-run", "^$", "-bench", s.Bench, "-count", "1", "-benchtime", r.benchtime}
	// Rounds of one process per side, the order swapped every round,
	// while another round fits before the deadline.
	var round time.Duration
	for n := 0; ; n++ {
		t0 := time.Now()
		for k := 0; k < 2; k++ {
			side := (n + k) % 2
			if err := r.goTest(ctx, bins[side], s.Bench, files[side], logf); err != nil {
				return err
			}
		}
		tr.Rounds++
		round = max(round, time.Since(t0))
		if budget == 0 && tr.Rounds >= r.defaultCount || budget > 0 && time.Now().Add(round).After(deadline) {
			break
		}
	}
	cmd := exec.CommandContext(ctx, tl.Path, "-format", "csv", filepath.Base(files[0]), filepath.Base(files[1]))
	cmd.Dir = filepath.Dir(files[0])
	var stdout strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, logf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("benchstat: %v (see %s)", err, tr.Log)
	}
	fmt.Fprintf(logf, "benchstat -format csv:\n%s", stdout.String())
	rows, err := parseBenchstat([]byte(stdout.String()))
	if err != nil {
		return err
	}
	tr.Rows = rows
	if tr.Gate != "" {
		limit, err := gateLimit(tr.Gate)
		if err != nil {
			return err
		}
		pass := true
		for _, x := range rows {
			if x.Verdict == slower && x.Ratio != nil && *x.Ratio > 1+limit {
				pass = false
			}
		}
		tr.GatePass = &pass
	}
	return nil
}

// goTest runs one go test -count=1 process of a test binary and appends
// its output to file.
func (r *runner) goTest(ctx context.Context, bin, bench, file string, logf *os.File) error {
	out, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	cmd := command(ctx, filepath.Dir(bin), bin, "-test.run", "^$", "-test.bench", bench, "-test.count", "1", "-test.benchtime", r.benchtime)
	cmd.Stdout, cmd.Stderr = w, logf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v (see %s)", filepath.Base(bin), err, logf.Name())
	}
	return w.Flush()
}

// gateLimit reads the limit of a rule "sec/op>+5%" as a fraction.
func gateLimit(rule string) (float64, error) {
	_, lim, ok := strings.Cut(rule, ">")
	var pct float64
	if ok {
		_, err := fmt.Sscanf(strings.TrimSuffix(strings.TrimSpace(lim), "%"), "%g", &pct)
		ok = err == nil && pct > 0 && strings.HasPrefix(rule, "sec/op")
	}
	if !ok {
		return 0, fmt.Errorf("gate %q: benchstat's gate reads only sec/op>+X%%", rule)
	}
	return pct / 100, nil
}
