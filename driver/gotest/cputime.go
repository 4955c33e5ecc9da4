package gotest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CPU time of the timed loop, from inside the test process.
//
// The testing package times a benchmark's loop with a wall clock that
// StartTimer, StopTimer and ResetTimer drive. A build with Build.CPUTime
// set compiles the test binary against a patched copy of the toolchain's
// own testing/benchmark.go (passed to the go command with -overlay, so
// neither GOROOT nor the user's tree changes): those three methods also
// read the process's CPU time (getrusage(RUSAGE_SELF): user + system, every
// thread) and accumulate it while the timer runs, exactly as the timer
// accumulates wall time, and every result line reports it as one more
// metric, cpu-ns/op (which benchfmt reads as cpu-sec/op). The CPU window
// encloses the wall-clock window, and the reads allocate nothing, so
// ns/op, B/op and allocs/op are what an unpatched binary reports.
//
// The patch is derived from the toolchain's file at build time: it finds
// the methods and statements it needs by parsing the file, and refuses
// (ErrNoCPUTime) when they are not there, so another Go version either
// gets the same instrument or a clear refusal, never a wrong one.

// UnitCPUNs is the metric a CPU-timed binary adds to every result line;
// benchfmt reads it as cpu-sec/op.
const UnitCPUNs = "cpu-ns/op"

// ErrNoCPUTime is wrapped by the error of a build with Build.CPUTime set
// whose toolchain's testing package cannot be patched (its source does not
// have the expected shape, or the build sets its own -overlay). Build
// without CPUTime to get an ordinary binary.
var ErrNoCPUTime = errors.New("the testing package cannot report cpu-sec/op")

// cpuTimeVersion changes whenever the patch or the added files change, so
// binaries built with an older patch are not reused.
const cpuTimeVersion = "1"

// cpuBuild is what a CPU-timed build adds: the files and the GOROOT whose
// testing package they go into.
type cpuBuild struct {
	files  cpuFiles
	goroot string
}

// cpuFiles is what the overlay replaces or adds in GOROOT/src/testing:
// file name → content.
type cpuFiles map[string][]byte

// sum is a hex SHA-256 over the files, names included.
func (f cpuFiles) sum() string {
	h := sha256.New()
	fmt.Fprintf(h, "cputime\x00%s\n", cpuTimeVersion)
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s := sha256.Sum256(f[n])
		fmt.Fprintf(h, "%s\x00%x\n", n, s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cpuTimeFiles reads the testing package's benchmark.go under goroot and
// returns the patched file and the added ones.
func cpuTimeFiles(goroot string) (cpuFiles, error) {
	if goroot == "" {
		return nil, fmt.Errorf("%w: go env printed no GOROOT", ErrNoCPUTime)
	}
	path := filepath.Join(goroot, "src", "testing", "benchmark.go")
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrNoCPUTime, path, err)
	}
	patched, err := patchBenchmark(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoCPUTime, path, err)
	}
	return cpuFiles{
		"benchmark.go":                patched,
		"perflab_cputime.go":          []byte(cpuTimerSource),
		"perflab_cputime_rusage.go":   []byte(cpuRusageSource),
		"perflab_cputime_norusage.go": []byte(cpuNoRusageSource),
	}, nil
}

// writeOverlay writes files under dir/overlay-<sum>/ with the go command's
// overlay JSON that maps them into goroot's testing package, and returns
// the JSON file's path. An existing complete overlay is reused.
func (f cpuFiles) writeOverlay(dir, goroot string) (string, error) {
	od := filepath.Join(dir, "overlay-"+f.sum()[:24])
	js := filepath.Join(od, "overlay.json")
	if _, err := os.Stat(js); err == nil {
		return js, nil
	}
	tmp, err := os.MkdirTemp(dir, ".overlay-*")
	if err != nil {
		return "", fmt.Errorf("gotest: creating the testing overlay: %w; choose a writable Build.CacheDir", err)
	}
	defer os.RemoveAll(tmp)
	replace := map[string]string{}
	for name, content := range f {
		if err := os.WriteFile(filepath.Join(tmp, name), content, 0o644); err != nil {
			return "", fmt.Errorf("gotest: writing the testing overlay: %w", err)
		}
		replace[filepath.Join(goroot, "src", "testing", name)] = filepath.Join(od, name)
	}
	b, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return "", fmt.Errorf("gotest: encoding the testing overlay: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), b, 0o644); err != nil {
		return "", fmt.Errorf("gotest: writing the testing overlay: %w", err)
	}
	if err := os.Rename(tmp, od); err != nil {
		if _, statErr := os.Stat(js); statErr == nil {
			return js, nil // another build wrote it first
		}
		return "", fmt.Errorf("gotest: moving the testing overlay into the cache: %w", err)
	}
	return js, nil
}

// setsOverlay reports whether build flags or GOFLAGS already pass the go
// command an -overlay, which one more -overlay would silently replace.
func setsOverlay(flags []string, goflags string) bool {
	for _, f := range append(slices.Clone(flags), strings.Fields(goflags)...) {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if strings.HasPrefix(f, "-") && name == "overlay" {
			return true
		}
	}
	return false
}

// patchBenchmark adds the CPU timer to the testing package's benchmark.go:
// a field of B, a read in StartTimer (before the wall clock starts), in
// StopTimer (after it stops) and in ResetTimer (restarting a running
// timer, and clearing the total where the duration is cleared), and the
// report of cpu-ns/op where launch stores the result. It finds each place
// by parsing src and returns an error naming the first one it cannot find
// exactly once. It never panics, whatever src holds.
func patchBenchmark(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "benchmark.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("does not parse: %v", err)
	}
	if f.Name.Name != "testing" {
		return nil, fmt.Errorf("is package %s, not testing", f.Name.Name)
	}
	file := fset.File(f.Pos())
	off := func(p token.Pos) int { return file.Offset(p) }
	var edits []edit

	st := structB(f)
	if st == nil {
		return nil, errors.New("declares no struct type B")
	}
	// The added file reads b.N and writes b.extra.
	if !hasField(st, "N") {
		return nil, errors.New("type B has no field N")
	}
	if !hasMapField(st, "extra") {
		return nil, errors.New("type B has no field extra of type map[string]float64")
	}
	edits = append(edits, edit{at: off(st.Fields.Closing), text: "\tperflabCPU perflabCPUTimer // added by perflab: CPU time while the timer runs\n"})

	places := []struct {
		method, field string
		tok           token.Token
		after         bool
		call          string
	}{
		{"StartTimer", "start", token.ASSIGN, false, "perflabCPU.start()"},
		{"StopTimer", "duration", token.ADD_ASSIGN, true, "perflabCPU.stop()"},
		{"ResetTimer", "start", token.ASSIGN, false, "perflabCPU.start()"},
		{"ResetTimer", "duration", token.ASSIGN, true, "perflabCPU.reset()"},
		{"launch", "result", token.ASSIGN, false, "perflabReportCPU()"},
	}
	for _, p := range places {
		fn := methodOfB(f, p.method)
		if fn == nil || fn.Body == nil {
			return nil, fmt.Errorf("has no method (*B).%s", p.method)
		}
		recv := fn.Recv.List[0].Names
		if len(recv) != 1 || recv[0].Name == "_" {
			return nil, fmt.Errorf("(*B).%s has no named receiver", p.method)
		}
		r := recv[0].Name
		stmts := assignsTo(fn.Body, r, p.field, p.tok)
		if len(stmts) != 1 {
			return nil, fmt.Errorf("(*B).%s assigns %s.%s with %s %d times, not once", p.method, r, p.field, p.tok, len(stmts))
		}
		s := stmts[0]
		indent := lineIndent(src, off(s.Pos()))
		if p.after {
			edits = append(edits, edit{at: off(s.End()), text: "\n" + indent + r + "." + p.call})
		} else {
			edits = append(edits, edit{at: off(s.Pos()), text: r + "." + p.call + "\n" + indent})
		}
	}
	out := applyEdits(src, edits)
	if _, err := parser.ParseFile(token.NewFileSet(), "benchmark.go", out, parser.SkipObjectResolution); err != nil {
		return nil, fmt.Errorf("patched copy does not parse: %v", err)
	}
	return out, nil
}

// edit inserts text at byte offset at.
type edit struct {
	at   int
	text string
}

// applyEdits inserts every edit's text into src, at offsets of the
// original src.
func applyEdits(src []byte, edits []edit) []byte {
	slices.SortStableFunc(edits, func(a, b edit) int { return a.at - b.at })
	var out bytes.Buffer
	last := 0
	for _, e := range edits {
		out.Write(src[last:e.at])
		out.WriteString(e.text)
		last = e.at
	}
	out.Write(src[last:])
	return out.Bytes()
}

// lineIndent is the run of spaces and tabs that begins the line holding
// offset at.
func lineIndent(src []byte, at int) string {
	start := bytes.LastIndexByte(src[:at], '\n') + 1
	end := start
	for end < at && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// structB is the struct type of the declaration "type B struct", or nil.
func structB(f *ast.File) *ast.StructType {
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts, ok := s.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "B" {
				continue
			}
			if st, ok := ts.Type.(*ast.StructType); ok && st.Fields != nil && st.Fields.Closing.IsValid() {
				return st
			}
		}
	}
	return nil
}

// hasField reports whether st declares a field named name.
func hasField(st *ast.StructType, name string) bool {
	return fieldType(st, name) != nil
}

// hasMapField reports whether st declares name as a map[string]float64.
func hasMapField(st *ast.StructType, name string) bool {
	m, ok := fieldType(st, name).(*ast.MapType)
	if !ok {
		return false
	}
	k, kok := m.Key.(*ast.Ident)
	v, vok := m.Value.(*ast.Ident)
	return kok && vok && k.Name == "string" && v.Name == "float64"
}

// fieldType is the type of st's field name, or nil.
func fieldType(st *ast.StructType, name string) ast.Expr {
	for _, fl := range st.Fields.List {
		for _, n := range fl.Names {
			if n.Name == name {
				return fl.Type
			}
		}
	}
	return nil
}

// methodOfB is the declaration of method name with receiver *B, or nil.
func methodOfB(f *ast.File, name string) *ast.FuncDecl {
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != name || fn.Recv == nil || len(fn.Recv.List) != 1 {
			continue
		}
		if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok && id.Name == "B" {
				return fn
			}
		}
	}
	return nil
}

// assignsTo lists the statements in body of the form recv.field <tok> …,
// with one left-hand side.
func assignsTo(body *ast.BlockStmt, recv, field string, tok token.Token) []*ast.AssignStmt {
	var out []*ast.AssignStmt
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false // a closure's statements run at another time
		}
		a, ok := n.(*ast.AssignStmt)
		if !ok || a.Tok != tok || len(a.Lhs) != 1 {
			return true
		}
		if sel, ok := a.Lhs[0].(*ast.SelectorExpr); ok && sel.Sel.Name == field {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == recv {
				out = append(out, a)
			}
		}
		return true
	})
	return out
}

// The files the overlay adds to the testing package. The reads allocate
// nothing (the rusage buffer is a package variable: benchmarks run one at
// a time, and only the benchmark's own goroutine drives its timer), so
// B/op and allocs/op are unchanged.
const cpuTimerSource = `// Added by perflab (github.com/perflab/perflab/driver/gotest) to this
// build's testing package: the benchmark timer also accumulates the
// process's CPU time.

package testing

import "time"

// perflabCPUTimer accumulates the process's CPU time (user + system, every
// thread) while a benchmark's timer runs, as B.duration accumulates wall
// time.
type perflabCPUTimer struct {
	begin, total time.Duration
	failed       bool // a read failed: the metric is not reported
}

func (t *perflabCPUTimer) start() {
	c, ok := perflabProcessCPU()
	t.begin, t.failed = c, t.failed || !ok
}

func (t *perflabCPUTimer) stop() {
	c, ok := perflabProcessCPU()
	t.total += c - t.begin
	t.failed = t.failed || !ok
}

func (t *perflabCPUTimer) reset() { t.total = 0 }

// perflabReportCPU adds cpu-ns/op to the result, unless the benchmark
// reported CPU time itself.
func (b *B) perflabReportCPU() {
	t := &b.perflabCPU
	if t.failed || b.N <= 0 || b.extra == nil {
		return
	}
	for _, u := range []string{"cpu-ns/op", "cpu-sec/op"} {
		if _, ok := b.extra[u]; ok {
			return
		}
	}
	b.extra["cpu-ns/op"] = float64(t.total.Nanoseconds()) / float64(b.N)
}
`

const cpuRusageBuild = "aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris"

const cpuRusageSource = `// Added by perflab: the process's CPU time from getrusage.

//go:build ` + cpuRusageBuild + `

package testing

import (
	"syscall"
	"time"
)

var perflabRusage syscall.Rusage

func perflabProcessCPU() (time.Duration, bool) {
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &perflabRusage); err != nil {
		return 0, false
	}
	return time.Duration(perflabRusage.Utime.Nano() + perflabRusage.Stime.Nano()), true
}
`

const cpuNoRusageSource = `// Added by perflab: no process CPU time on this system.

//go:build !(` + cpuRusageBuild + `)

package testing

import "time"

func perflabProcessCPU() (time.Duration, bool) { return 0, false }
`
