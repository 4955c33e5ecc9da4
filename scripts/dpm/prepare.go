package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/perflab/perflab/driver/cachegrind"
)

// manifestFormat changes when the subjects change: a manifest of another
// format is prepared again.
const manifestFormat = 1

// A manifest lists the prepared subjects and their measured truths. It is
// manifest.json in the work directory.
type manifest struct {
	Format   int       `json:"format"`
	Created  time.Time `json:"created"`
	Go       string    `json:"go"`
	Valgrind string    `json:"valgrind"`
	Subjects []subject `json:"subjects"`
}

// A subject is one change of one module: perflab ab Old New in Dir, on
// the benchmarks Bench selects.
type subject struct {
	Name    string  `json:"name"` // module/change
	Module  string  `json:"module"`
	Path    string  `json:"path"` // module path@version
	Change  string  `json:"change"`
	Target  float64 `json:"target"` // planted size asked for; 0 for layout-only
	Dir     string  `json:"dir"`
	Old     string  `json:"old"` // git tags
	New     string  `json:"new"`
	Commit  string  `json:"commit"` // New's hash
	Subject string  `json:"subject"`
	Bench   string  `json:"bench"`
	// Knobs are the planted constants (absent for layout-only).
	Knobs map[string]int `json:"knobs,omitempty"`
	// Truth is each benchmark's instructions/op at Old and New, by
	// Cachegrind, and the change New/Old − 1.
	Truth []truth `json:"truth"`
}

// A truth is one benchmark's instructions/op at Old and New outside
// package runtime, and the change New/Old − 1. The runtime's scheduler,
// garbage collector and timers run beside the benchmark and vary from
// run to run by ±0.05–0.1% of these benchmarks' counts; the benchmarks'
// own calls into the runtime (memequal) are a few dozen instructions a
// call, the same at Old and New. OldAll and NewAll count every function.
type truth struct {
	Bench  string  `json:"bench"`
	Old    float64 `json:"old"`
	New    float64 `json:"new"`
	Change float64 `json:"change"`
	OldAll float64 `json:"old_all"`
	NewAll float64 `json:"new_all"`
}

// planted reports whether the subject's change adds executed work.
func (s subject) planted() bool { return s.Target != 0 }

func manifestPath(dir string) string { return filepath.Join(dir, "manifest.json") }

func readManifest(dir string) (*manifest, error) {
	data, err := os.ReadFile(manifestPath(dir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no subjects in %s: run `dpm prepare -dir %s` first", dir, dir)
		}
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w (run `dpm prepare -force -dir %s`)", manifestPath(dir), err, dir)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("%s has format %d, this dpm writes %d: run `dpm prepare -force -dir %s`", manifestPath(dir), m.Format, manifestFormat, dir)
	}
	return &m, nil
}

func cmdPrepare(ctx context.Context, args []string) error {
	fset := flag.NewFlagSet("prepare", flag.ExitOnError)
	dir := fset.String("dir", "", "work `directory` for the subject repositories and manifest.json (required)")
	force := fset.Bool("force", false, "prepare again even when manifest.json is there")
	only := fset.String("modules", "", "comma-separated `names` of the modules to prepare (default all: "+moduleNames()+")")
	fset.Usage = func() {
		fmt.Fprint(fset.Output(), `Usage: dpm prepare -dir D [-force] [-modules gjson,bitset]

Prepare downloads each module with go mod download, copies it to
D/src/NAME, commits it with a benchmark file of its own as dpm-base and
commits each change on top of it (tags dpm-slow2, dpm-slow5, dpm-slow10,
dpm-layout). The planted slowdowns are sized by measurement: Cachegrind
counts the instructions/op of probe builds, the sizes are solved for
+2/+5/+10%, and every committed change is measured again; the measured
changes go to D/manifest.json. A manifest already there is kept unless
-force. It takes 10–30 minutes (Cachegrind runs about 50× slower than
the machine).

Flags:
`)
		fset.PrintDefaults()
	}
	fset.Parse(args)
	if *dir == "" || fset.NArg() > 0 {
		fset.Usage()
		os.Exit(2)
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	var mods []module
	for _, m := range modules {
		if *only == "" || containsWord(*only, m.Name) {
			mods = append(mods, m)
		}
	}
	if len(mods) == 0 {
		return fmt.Errorf("-modules %q names none of %s", *only, moduleNames())
	}
	if old, err := readManifest(abs); err == nil && !*force {
		var missing []module
		for _, m := range mods {
			if !hasModule(old, m.Name) {
				missing = append(missing, m)
			}
		}
		if len(missing) == 0 {
			fmt.Fprintf(os.Stderr, "dpm: %s holds %d prepared subjects (-force prepares them again)\n", manifestPath(abs), len(old.Subjects))
			printManifest(os.Stdout, old)
			return checkTruths(old)
		}
		mods = missing
	}
	vg, err := cachegrind.Version(ctx)
	if err != nil {
		return err
	}
	goVersion, err := output(ctx, "", nil, "go", "env", "GOVERSION")
	if err != nil {
		return err
	}
	man := &manifest{Format: manifestFormat, Created: time.Now().UTC(), Go: goVersion, Valgrind: vg}
	if old, err := readManifest(abs); err == nil && old.Go == goVersion && old.Valgrind == vg {
		// Keep the subjects of the modules not prepared now.
		for _, s := range old.Subjects {
			if !containsWord(moduleList(mods), s.Module) {
				man.Subjects = append(man.Subjects, s)
			}
		}
	}
	for _, m := range mods {
		subs, err := prepareModule(ctx, abs, m)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		man.Subjects = append(man.Subjects, subs...)
	}
	order := map[string]int{}
	for i, m := range modules {
		order[m.Name] = i
	}
	sort.SliceStable(man.Subjects, func(i, j int) bool { return order[man.Subjects[i].Module] < order[man.Subjects[j].Module] })
	data, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(manifestPath(abs), append(data, '\n'), 0o644); err != nil {
		return err
	}
	printManifest(os.Stdout, man)
	return checkTruths(man)
}

func hasModule(m *manifest, name string) bool {
	for _, s := range m.Subjects {
		if s.Module == name {
			return true
		}
	}
	return false
}

func moduleNames() string { return moduleList(modules) }

// moduleList is the modules' names, comma-separated.
func moduleList(mods []module) string {
	var names []string
	for _, m := range mods {
		names = append(names, m.Name)
	}
	return strings.Join(names, ",")
}

func containsWord(list, w string) bool {
	for _, x := range strings.Split(list, ",") {
		if strings.TrimSpace(x) == w {
			return true
		}
	}
	return false
}

// Tolerances of the measured changes: a planted change within a point of
// its target, a layout-only change within ±0.1%.
const (
	plantedTolerance = 0.01
	layoutTolerance  = 0.001
)

// checkTruths fails when a measured change misses its tolerance.
func checkTruths(m *manifest) error {
	var bad []string
	for _, s := range m.Subjects {
		tol := plantedTolerance
		if !s.planted() {
			tol = layoutTolerance
		}
		for _, t := range s.Truth {
			if math.Abs(t.Change-s.Target) > tol {
				bad = append(bad, fmt.Sprintf("%s %s: %+.2f%%, want %+.0f%% ± %.1f", s.Name, t.Bench, 100*t.Change, 100*s.Target, 100*tol))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("measured changes outside their tolerance (the manifest keeps them; a new toolchain may need -force):\n  %s", strings.Join(bad, "\n  "))
	}
	return nil
}

// printManifest writes the subjects and their measured changes.
func printManifest(w *os.File, m *manifest) {
	fmt.Fprintf(w, "subjects (%s, %s; instructions/op outside package runtime by Cachegrind, old → new):\n", m.Go, m.Valgrind)
	for _, s := range m.Subjects {
		fmt.Fprintf(w, "  %-14s %s..%s  %s\n", s.Name, s.Old, s.New, s.Subject)
		for _, t := range s.Truth {
			fmt.Fprintf(w, "      %-32s %12.1f → %12.1f  %+7.3f%%\n", t.Bench, t.Old, t.New, 100*t.Change)
		}
	}
}

// prepareModule makes m's repository and measures its changes.
func prepareModule(ctx context.Context, dir string, m module) ([]subject, error) {
	src := filepath.Join(dir, "src", m.Name)
	if err := os.RemoveAll(src); err != nil {
		return nil, err
	}
	info, err := output(ctx, "", nil, "go", "mod", "download", "-json", m.Path+"@"+m.Version)
	if err != nil {
		return nil, fmt.Errorf("downloading %s@%s: %w", m.Path, m.Version, err)
	}
	var dl struct{ Dir, Error string }
	if err := json.Unmarshal([]byte(info), &dl); err != nil || dl.Dir == "" {
		return nil, fmt.Errorf("go mod download %s@%s: no directory in %q (%v %s)", m.Path, m.Version, info, err, dl.Error)
	}
	progress("%s: copying %s@%s to %s", m.Name, m.Path, m.Version, src)
	if err := copyTree(dl.Dir, src); err != nil {
		return nil, err
	}
	g := &repo{ctx: ctx, dir: src}
	g.git("init", "-q", "-b", "main")
	g.commit(fmt.Sprintf("%s %s with the benchmarks of %s", m.Path, m.Version, m.BenchFile), map[string]string{m.BenchFile: m.BenchText})
	g.git("tag", "dpm-base")
	if g.err != nil {
		return nil, g.err
	}
	sources := map[string]string{}
	for _, s := range m.Sites {
		data, err := os.ReadFile(filepath.Join(src, s.File))
		if err != nil {
			return nil, err
		}
		sources[s.File] = string(data)
	}
	meas := &measurer{ctx: ctx, tmp: filepath.Join(dir, "tmp"), m: m, n: map[string]int64{}, all: map[string]float64{}}
	if err := os.MkdirAll(meas.tmp, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(meas.tmp)

	progress("%s: measuring the base (Cachegrind)", m.Name)
	const baseKey = "dpm-base"
	base, err := meas.measureRev(g, baseKey)
	if err != nil {
		return nil, err
	}
	// Probes: every knob at 0 (the cost of the calls themselves), then
	// each knob alone at its probe value.
	plant := func(values map[string]int) (map[string]string, error) {
		files, err := applySites(m, sources)
		if err != nil {
			return nil, err
		}
		files[m.Planted] = plantedFile(m, values)
		return files, nil
	}
	zero := map[string]int{}
	for _, k := range m.Knobs {
		zero[k.Name] = 0
	}
	files, err := plant(zero)
	if err != nil {
		return nil, err
	}
	progress("%s: measuring the planted calls with no work", m.Name)
	offset, err := meas.measureFiles(src, files)
	if err != nil {
		return nil, err
	}
	perUnit := make([][]float64, len(m.Benchmarks)) // [bench][knob]: instructions per unit
	for b := range perUnit {
		perUnit[b] = make([]float64, len(m.Knobs))
	}
	for k, kn := range m.Knobs {
		values := copyMap(zero)
		values[kn.Name] = kn.Probe
		files, err := plant(values)
		if err != nil {
			return nil, err
		}
		progress("%s: measuring probe %s = %d", m.Name, kn.Name, kn.Probe)
		got, err := meas.measureFiles(src, files)
		if err != nil {
			return nil, err
		}
		for b, name := range m.Benchmarks {
			perUnit[b][k] = (got[name] - offset[name]) / float64(kn.Probe)
		}
		progress("%s:   %s", m.Name, changesLine(m, base, got))
	}
	var subs []subject
	for _, c := range changes {
		var files map[string]string
		var knobs map[string]int
		var subjectLine string
		if c.Target != 0 {
			knobs = solveKnobs(m, base, offset, perUnit, c.Target)
			progress("%s: %s: knobs %v, modelled %s", m.Name, c.Name, knobs, changesLine(m, base, model(m, offset, perUnit, knobs)))
			files, err = plant(knobs)
			if err != nil {
				return nil, err
			}
			subjectLine = fmt.Sprintf("%s: planted work on the hot path, about %+.0f%% instructions/op", m.Name, 100*c.Target)
		} else {
			files = map[string]string{m.LayoutFile: m.LayoutText}
			subjectLine = fmt.Sprintf("%s: functions that never run, placed before the package's code (layout only)", m.Name)
		}
		tag := "dpm-" + c.Name
		g.git("checkout", "-q", "--detach", "dpm-base")
		g.commit(subjectLine, files)
		g.git("tag", tag)
		hash := g.git("rev-parse", "HEAD")
		g.git("checkout", "-q", "main")
		if g.err != nil {
			return nil, g.err
		}
		progress("%s: measuring %s", m.Name, tag)
		got, err := meas.measureRev(g, tag)
		if err != nil {
			return nil, err
		}
		progress("%s:   measured %s", m.Name, changesLine(m, base, got))
		s := subject{
			Name: m.Name + "/" + c.Name, Module: m.Name, Path: m.Path + "@" + m.Version, Change: c.Name, Target: c.Target,
			Dir: src, Old: "dpm-base", New: tag, Commit: hash, Subject: subjectLine, Bench: benchRegex, Knobs: knobs,
		}
		for _, name := range m.Benchmarks {
			s.Truth = append(s.Truth, truth{Bench: name, Old: base[name], New: got[name], Change: got[name]/base[name] - 1,
				OldAll: meas.all[baseKey+name], NewAll: meas.all[tag+name]})
		}
		subs = append(subs, s)
	}
	return subs, nil
}

// model is the instructions/op the probes predict at the knobs' values.
func model(m module, offset map[string]float64, perUnit [][]float64, knobs map[string]int) map[string]float64 {
	out := map[string]float64{}
	for b, name := range m.Benchmarks {
		out[name] = offset[name]
		for k, kn := range m.Knobs {
			out[name] += perUnit[b][k] * float64(knobs[kn.Name])
		}
	}
	return out
}

// changesLine lists each benchmark's change from base to got.
func changesLine(m module, base, got map[string]float64) string {
	var parts []string
	for _, name := range m.Benchmarks {
		parts = append(parts, fmt.Sprintf("%s %+.2f%%", strings.TrimPrefix(name, "BenchmarkAB"), 100*(got[name]/base[name]-1)))
	}
	return strings.Join(parts, ", ")
}

func copyMap(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// solveKnobs chooses the knobs' values whose modelled instructions/op
// come closest to base × (1 + target) over the benchmarks, in relative
// terms and with no knob negative: the least-squares solution over every
// subset of knobs left free, the best one that is feasible.
func solveKnobs(m module, base, offset map[string]float64, perUnit [][]float64, target float64) map[string]int {
	nk := len(m.Knobs)
	// Rows: benchmark b wants Σ_k perUnit[b][k]·x_k = target·base − offset, scaled by 1/base.
	a := make([][]float64, len(m.Benchmarks))
	y := make([]float64, len(m.Benchmarks))
	for b, name := range m.Benchmarks {
		a[b] = make([]float64, nk)
		for k := range a[b] {
			a[b][k] = perUnit[b][k] / base[name]
		}
		y[b] = target - (offset[name]-base[name])/base[name]
	}
	best, bestRes := make([]float64, nk), math.Inf(1)
	for mask := 1; mask < 1<<nk; mask++ {
		var free []int
		for k := 0; k < nk; k++ {
			if mask&(1<<k) != 0 {
				free = append(free, k)
			}
		}
		x, ok := leastSquares(a, y, free)
		if !ok {
			continue
		}
		res := 0.0
		for b := range a {
			r := -y[b]
			for k := range x {
				r += a[b][k] * x[k]
			}
			res += r * r
		}
		if res < bestRes {
			best, bestRes = x, res
		}
	}
	out := map[string]int{}
	for k, kn := range m.Knobs {
		out[kn.Name] = int(math.Round(best[k]))
	}
	return out
}

// leastSquares solves min ‖A x − y‖ over the free columns (the others
// held at 0) by the normal equations; ok is false when the system is
// singular or a free value is negative.
func leastSquares(a [][]float64, y []float64, free []int) ([]float64, bool) {
	n := len(free)
	mat := make([][]float64, n)
	for i, ki := range free {
		mat[i] = make([]float64, n+1)
		for j, kj := range free {
			for b := range a {
				mat[i][j] += a[b][ki] * a[b][kj]
			}
		}
		for b := range a {
			mat[i][n] += a[b][ki] * y[b]
		}
	}
	for col := 0; col < n; col++ {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(mat[r][col]) > math.Abs(mat[p][col]) {
				p = r
			}
		}
		if math.Abs(mat[p][col]) < 1e-300 {
			return nil, false
		}
		mat[col], mat[p] = mat[p], mat[col]
		for r := 0; r < n; r++ {
			if r == col {
				continue
			}
			f := mat[r][col] / mat[col][col]
			for c := col; c <= n; c++ {
				mat[r][c] -= f * mat[col][c]
			}
		}
	}
	x := make([]float64, len(a[0]))
	for i, k := range free {
		x[k] = mat[i][n] / mat[i][i]
		if x[k] < 0 || math.IsNaN(x[k]) {
			return nil, false
		}
	}
	return x, true
}

// A measurer counts instructions/op of a module's benchmarks in builds of
// its trees. n holds each benchmark's iteration count, calibrated once on
// the first build; all the counts over every function of the builds of
// revisions, by revision and benchmark.
type measurer struct {
	ctx   context.Context
	tmp   string
	m     module
	n     map[string]int64
	all   map[string]float64
	build int
}

// measureRev measures the tree of a revision of g.
func (ms *measurer) measureRev(g *repo, rev string) (map[string]float64, error) {
	tree, err := ms.newTree()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tree)
	if err := exportRev(ms.ctx, g.dir, rev, tree); err != nil {
		return nil, err
	}
	work, all, err := ms.measureTree(tree)
	for name, n := range all {
		ms.all[rev+name] = n
	}
	return work, err
}

// exportRev writes the tree of revision rev of the repository in dir to
// tree, as perflab exports a revision (git archive).
func exportRev(ctx context.Context, dir, rev, tree string) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", dir, rev, tree)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("exporting %s of %s: %v: %s", rev, dir, err, out)
	}
	return nil
}

// measureFiles measures a copy of the working tree src with files
// written over it.
func (ms *measurer) measureFiles(src string, files map[string]string) (map[string]float64, error) {
	tree, err := ms.newTree()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tree)
	if err := copyTree(src, tree); err != nil {
		return nil, err
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(tree, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	work, _, err := ms.measureTree(tree)
	return work, err
}

func (ms *measurer) newTree() (string, error) {
	ms.build++
	tree := filepath.Join(ms.tmp, fmt.Sprintf("tree%d", ms.build))
	return tree, os.MkdirAll(tree, 0o755)
}

// cachegrindEnv lets Cachegrind run a Go binary: valgrind 3.19 cannot
// decode RDTSCP, which the runtime uses where the CPU has it.
var cachegrindEnv = []string{"GODEBUG=cpu.rdtscp=off"}

// measureTree builds the test binary of tree and counts each benchmark's
// instructions/op outside package runtime (work) and in every function
// (all).
func (ms *measurer) measureTree(tree string) (work, all map[string]float64, err error) {
	bin := filepath.Join(tree, "dpm.test")
	if _, err := output(ms.ctx, tree, nil, "go", "test", "-c", "-o", bin, "."); err != nil {
		return nil, nil, fmt.Errorf("building the test binary: %w", err)
	}
	work, all = map[string]float64{}, map[string]float64{}
	for _, name := range ms.m.Benchmarks {
		cell := cachegrind.Cell{Binary: bin, Dir: tree, Bench: "^" + name + "$", CPU: 1, Env: cachegrindEnv}
		n, ok := ms.n[name]
		if !ok {
			cal, err := cachegrind.Calibrate(ms.ctx, cell, cachegrind.Options{TempDir: ms.tmp})
			if err != nil {
				return nil, nil, fmt.Errorf("calibrating %s: %w", name, err)
			}
			n = cal.N
			ms.n[name] = n
		}
		meas, err := cachegrind.Measure(ms.ctx, cell, cachegrind.Options{TempDir: ms.tmp}, n)
		if err != nil {
			return nil, nil, fmt.Errorf("measuring %s: %w", name, err)
		}
		all[name] = meas.Instructions()
		work[name] = outsideRuntime(meas)
	}
	return work, all, nil
}

// outsideRuntime is a measurement's instructions/op less those in
// functions of package runtime.
func outsideRuntime(m *cachegrind.Measurement) float64 {
	n := m.Instructions()
	for fn, per := range m.Funcs {
		if strings.HasPrefix(fn, "runtime.") {
			n -= per
		}
	}
	return n
}

// copyTree copies the regular files of src to dst, writable, leaving out
// .git.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}

// output runs a command in dir and returns its standard output, trimmed;
// an error carries its standard error.
func output(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// repo runs git in one directory as one author, each commit a minute
// after the one before from a fixed date, so the same files give the same
// hashes; the first error sticks.
type repo struct {
	ctx     context.Context
	dir     string
	commits int
	err     error
}

func (r *repo) git(args ...string) string {
	if r.err != nil {
		return ""
	}
	when := time.Date(2025, 1, 1, 0, r.commits, 0, 0, time.UTC).Format(time.RFC3339)
	env := []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		env = append(env, "GIT_"+who+"_NAME=dpm", "GIT_"+who+"_EMAIL=dpm@example.com", "GIT_"+who+"_DATE="+when)
	}
	var out string
	out, r.err = output(r.ctx, r.dir, env, "git", args...)
	return out
}

// commit commits files, written over the working tree, and everything
// else changed in it.
func (r *repo) commit(subject string, files map[string]string) {
	for name, text := range files {
		if r.err == nil {
			r.err = os.WriteFile(filepath.Join(r.dir, name), []byte(text), 0o644)
		}
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", subject)
	r.commits++
}

// progress writes a line of progress to standard error.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "dpm: "+format+"\n", args...)
}
