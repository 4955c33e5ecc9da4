package gotest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// A Build describes one test binary: a package built in one build
// environment. The zero value builds the package in the current directory
// with no extra settings, once CacheDir is set.
type Build struct {
	Dir      string   // directory the go command runs in (inside the module)
	Package  string   // package pattern relative to Dir, e.g. "." or "./experiments/poolreuse"
	Env      []string // extra build env "KEY=VAL" (GOEXPERIMENT, GOTOOLCHAIN, ...), appended to os.Environ()
	Flags    []string // extra build flags, e.g. "-tags=a,b", "-gcflags=-N"
	CacheDir string   // where binaries live; created if missing
	// CPUTime builds against the toolchain's testing package patched so
	// that every benchmark result line also reports the CPU time of its
	// timed loop, cpu-ns/op (cputime.go). When the patch cannot be made,
	// Key and Compile fail with an error wrapping ErrNoCPUTime.
	CPUTime bool
}

// envKeys are the go env variables that select the toolchain and target and
// so determine the binary.
var envKeys = []string{
	"GOVERSION", "GOROOT", "GOOS", "GOARCH", "GOEXPERIMENT", "GOFLAGS",
	"GO386", "GOAMD64", "GOARM", "GOARM64", "GOMIPS", "GOMIPS64", "GOPPC64", "GORISCV64", "GOWASM",
	"GOFIPS140", "CGO_ENABLED", "CC", "CXX", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_FFLAGS", "CGO_LDFLAGS",
	"GOMOD", "GOWORK", "GOMODCACHE",
}

// listedPackage is the part of go list -json output that Key hashes.
type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	DepOnly    bool
	Module     *struct {
		Path    string
		Version string
		Replace *struct {
			Path    string
			Version string
		}
	}
	GoFiles, CgoFiles, CFiles, CXXFiles, MFiles, HFiles, FFiles, SFiles []string
	SwigFiles, SwigCXXFiles, SysoFiles, EmbedFiles                      []string
	TestGoFiles, TestEmbedFiles, XTestGoFiles, XTestEmbedFiles          []string
}

// listFields are the fields requested from go list.
const listFields = "ImportPath,Dir,Standard,DepOnly,Module," +
	"GoFiles,CgoFiles,CFiles,CXXFiles,MFiles,HFiles,FFiles,SFiles," +
	"SwigFiles,SwigCXXFiles,SysoFiles,EmbedFiles," +
	"TestGoFiles,TestEmbedFiles,XTestGoFiles,XTestEmbedFiles"

// Key returns a hex SHA-256 over everything that determines the binary
// Compile would build (see the package documentation, "Caching"). It runs
// go env and go list -deps -test in b.Dir under b.Env, passing them the
// build flags that affect which files are compiled (-tags, -mod, -modfile,
// -race, -msan, -asan, -cover, -covermode, -coverpkg, -pgo).
func (b Build) Key(ctx context.Context) (string, error) {
	key, _, err := b.key(ctx)
	return key, err
}

// key is Key, and with b.CPUTime the testing package's patched files and
// the GOROOT they go into.
func (b Build) key(ctx context.Context) (string, *cpuBuild, error) {
	pkg := b.pkg()
	if strings.HasPrefix(pkg, "-") {
		return "", nil, fmt.Errorf("gotest: Build.Package %q looks like a flag; put build flags in Build.Flags and a package pattern such as \".\" in Package", pkg)
	}
	h := sha256.New()
	field := func(k, v string) { fmt.Fprintf(h, "%s\x00%s\n", k, v) }
	field("gotest.key", "1")

	// Toolchain and target.
	var goenv map[string]string
	out, err := b.goOutput(ctx, append([]string{"env", "-json"}, envKeys...))
	if err != nil {
		return "", nil, fmt.Errorf("gotest: reading the build environment for %s: %w", pkg, err)
	}
	if err := json.Unmarshal(out, &goenv); err != nil {
		return "", nil, fmt.Errorf("gotest: decoding go env -json output: %w; check the toolchain selected by GOTOOLCHAIN", err)
	}
	for _, k := range envKeys {
		field("env."+k, goenv[k])
	}
	var cpu *cpuBuild
	if b.CPUTime {
		if setsOverlay(b.Flags, goenv["GOFLAGS"]) {
			return "", nil, fmt.Errorf("gotest: %w: the build passes its own -overlay, which a second -overlay would replace; unset Build.CPUTime to build without the CPU timer", ErrNoCPUTime)
		}
		files, err := cpuTimeFiles(goenv["GOROOT"])
		if err != nil {
			return "", nil, fmt.Errorf("gotest: %w; unset Build.CPUTime to build without the CPU timer", err)
		}
		cpu = &cpuBuild{files: files, goroot: goenv["GOROOT"]}
		field("cputime", files.sum())
	}
	for _, e := range b.Env {
		field("Env", e)
	}
	for _, f := range b.Flags {
		field("Flags", f)
		// -modfile names an alternate go.mod (and go.sum beside it) whose
		// contents decide the build as much as go.mod's do.
		if mf, ok := strings.CutPrefix(f, "-modfile="); ok {
			if !filepath.IsAbs(mf) {
				mf = filepath.Join(b.Dir, mf)
			}
			for _, p := range []string{mf, strings.TrimSuffix(mf, ".mod") + ".sum"} {
				if err := hashFile(h, "modfile."+filepath.Base(p), p, true); err != nil {
					return "", nil, err
				}
			}
		}
	}

	// Module files.
	for _, k := range []string{"GOMOD", "GOWORK"} {
		p := goenv[k]
		if p == "" || p == os.DevNull || p == "off" {
			continue
		}
		sum := p + ".sum" // go.work.sum
		if k == "GOMOD" {
			sum = strings.TrimSuffix(p, ".mod") + ".sum"
		}
		for _, f := range []string{p, sum} {
			if err := hashFile(h, "module."+filepath.Base(f), f, true); err != nil {
				return "", nil, err
			}
		}
	}

	// Sources of the package, its tests and its dependencies.
	listFlags, pgo := b.listFlags()
	if pgo != "" && pgo != "auto" && pgo != "off" {
		p := pgo
		if !filepath.IsAbs(p) {
			p = filepath.Join(b.Dir, p)
		}
		if err := hashFile(h, "pgo", p, false); err != nil {
			return "", nil, err
		}
	}
	args := append([]string{"list", "-deps", "-test", "-json=" + listFields}, listFlags...)
	args = append(args, pkg)
	out, err = b.goOutput(ctx, args)
	if err != nil {
		return "", nil, fmt.Errorf("gotest: listing the sources of %s: %w", pkg, err)
	}
	modCache := goenv["GOMODCACHE"]
	seen := make(map[string][]byte) // file path -> content hash
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return "", nil, fmt.Errorf("gotest: decoding go list output for %s: %w", pkg, err)
		}
		if p.Standard {
			continue
		}
		field("package", p.ImportPath)
		if m := p.Module; m != nil && m.Version != "" && modCache != "" && within(p.Dir, modCache) {
			// Immutable, checksummed module cache content.
			field("module", m.Path+"@"+m.Version)
			field("moduledir", relOr(modCache, p.Dir))
			if m.Replace != nil {
				field("replace", m.Replace.Path+"@"+m.Replace.Version)
			}
			continue
		}
		if !p.DepOnly {
			if err := hashFile(h, "default.pgo", filepath.Join(p.Dir, "default.pgo"), true); err != nil {
				return "", nil, err
			}
		}
		lists := [][]string{
			p.GoFiles, p.CgoFiles, p.CFiles, p.CXXFiles, p.MFiles, p.HFiles, p.FFiles, p.SFiles,
			p.SwigFiles, p.SwigCXXFiles, p.SysoFiles, p.EmbedFiles,
			p.TestGoFiles, p.TestEmbedFiles, p.XTestGoFiles, p.XTestEmbedFiles,
		}
		for _, list := range lists {
			for _, name := range list {
				path := name
				if !filepath.IsAbs(path) {
					path = filepath.Join(p.Dir, name)
				}
				sum, ok := seen[path]
				if !ok {
					sum, err = fileSum(path)
					if err != nil {
						return "", nil, fmt.Errorf("gotest: hashing source of %s: %w", p.ImportPath, err)
					}
					seen[path] = sum
				}
				field("file", filepath.ToSlash(relOr(p.Dir, path))+"\x00"+hex.EncodeToString(sum))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), cpu, nil
}

// Compile builds b's test binary with go test -c into b.CacheDir/<key>.test
// unless that file already exists, and returns its path and whether it came
// from the cache. The go command's output is discarded on success; on
// failure the error includes its last 20 lines. A package without test
// files is an error, since go test -c then writes no binary.
func Compile(ctx context.Context, b Build) (bin string, cached bool, err error) {
	if b.CacheDir == "" {
		return "", false, errors.New("gotest: Build.CacheDir is empty; set it to the directory that should hold compiled test binaries")
	}
	key, cpu, err := b.key(ctx)
	if err != nil {
		return "", false, err
	}
	cacheDir, err := filepath.Abs(b.CacheDir)
	if err != nil {
		return "", false, fmt.Errorf("gotest: resolving cache dir %q: %w", b.CacheDir, err)
	}
	bin = filepath.Join(cacheDir, key+".test")
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		// Mark it used, so that pruning the cache oldest first removes
		// the binaries used least recently.
		now := time.Now()
		_ = os.Chtimes(bin, now, now)
		return bin, true, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", false, fmt.Errorf("gotest: creating cache dir: %w; choose a writable Build.CacheDir", err)
	}
	tmpDir, err := os.MkdirTemp(cacheDir, ".build-*")
	if err != nil {
		return "", false, fmt.Errorf("gotest: creating temporary build dir: %w; choose a writable Build.CacheDir", err)
	}
	defer os.RemoveAll(tmpDir)
	tmp := filepath.Join(tmpDir, key+".test")

	flags, err := b.buildFlags(cpu, cacheDir)
	if err != nil {
		return "", false, err
	}
	args := append([]string{"test", "-c", "-o", tmp}, flags...)
	args = append(args, b.pkg())
	if _, err := b.goOutput(ctx, args); err != nil {
		return "", false, fmt.Errorf("gotest: building test binary for %s in %s: %w", b.pkg(), b.dirName(), err)
	}
	if fi, err := os.Stat(tmp); err != nil || fi.Size() == 0 {
		return "", false, fmt.Errorf("gotest: go test -c wrote no binary for %s in %s; the package has no test files — add a _test.go file with benchmarks", b.pkg(), b.dirName())
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", false, fmt.Errorf("gotest: moving test binary into the cache: %w", err)
	}
	return bin, false, nil
}

// buildFlags are the flags go test -c gets before the package: the CPU
// timer's overlay (written into cacheDir) when cpu is set, then b.Flags.
func (b Build) buildFlags(cpu *cpuBuild, cacheDir string) ([]string, error) {
	var args []string
	if cpu != nil {
		ov, err := cpu.files.writeOverlay(cacheDir, cpu.goroot)
		if err != nil {
			return nil, err
		}
		// vet reads a package's files from disk, and before Go 1.26 did
		// not find the files an overlay adds to the testing package.
		args = append(args, "-overlay="+ov, "-vet=off")
	}
	return append(args, b.Flags...), nil
}

func (b Build) pkg() string {
	if b.Package == "" {
		return "."
	}
	return b.Package
}

func (b Build) dirName() string {
	if b.Dir == "" {
		return "the current directory"
	}
	return b.Dir
}

// goOutput runs the go command with args in b.Dir under b.Env and returns
// its standard output. On failure the error holds the tail of its combined
// output.
func (b Build) goOutput(ctx context.Context, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = b.Dir
	cmd.Env = append(os.Environ(), b.Env...)
	var stdout bytes.Buffer
	tail := new(tailBuffer)
	cmd.Stdout = io.MultiWriter(&stdout, tail)
	cmd.Stderr = tail
	cmd.WaitDelay = 5 * time.Second
	isolate(cmd)
	err := cmd.Run()
	_ = killGroup(cmd)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("go %s: %w", args[0], ctxErr)
		}
		var ee *exec.Error
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("go %s: %w; install Go or put the go command on PATH", args[0], err)
		}
		out := tail.String()
		if what, why, ok := fetchFailure(out); ok {
			return nil, &FetchError{What: what, Why: why, Output: out}
		}
		return nil, fmt.Errorf("go %s failed (%v); fix the problem shown in its output:\n%s", args[0], err, out)
	}
	return stdout.Bytes(), nil
}

// listFlags returns the subset of b.Flags that go list needs to see the
// same files as go test -c, and the value of -pgo if given.
func (b Build) listFlags() (list []string, pgo string) {
	pass := map[string]bool{
		"tags": true, "mod": true, "modfile": true, "race": true, "msan": true, "asan": true,
		"cover": true, "covermode": true, "coverpkg": true, "pgo": true,
	}
	// Build flags that take a value as the next argument when written
	// without '='.
	valued := map[string]bool{
		"tags": true, "mod": true, "modfile": true, "covermode": true, "coverpkg": true, "pgo": true,
		"asmflags": true, "buildmode": true, "compiler": true, "gccgoflags": true, "gcflags": true,
		"installsuffix": true, "ldflags": true, "overlay": true, "pkgdir": true, "toolexec": true,
		"p": true, "o": true, "exec": true, "vet": true,
	}
	for i := 0; i < len(b.Flags); i++ {
		f := b.Flags[i]
		if !strings.HasPrefix(f, "-") {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(f, "-"), "=")
		takesNext := !hasVal && valued[name] && i+1 < len(b.Flags)
		if takesNext {
			val = b.Flags[i+1]
		}
		if pass[name] {
			list = append(list, f)
			if takesNext {
				list = append(list, val)
			}
			if name == "pgo" {
				pgo = val
			}
		}
		if takesNext {
			i++
		}
	}
	return list, pgo
}

// hashFile writes path's content hash to h under label. A missing file is
// recorded as missing when optional is set and is an error otherwise.
func hashFile(h hash.Hash, label, path string, optional bool) error {
	sum, err := fileSum(path)
	if errors.Is(err, os.ErrNotExist) && optional {
		fmt.Fprintf(h, "%s\x00-\n", label)
		return nil
	}
	if err != nil {
		return fmt.Errorf("gotest: hashing %s: %w", label, err)
	}
	fmt.Fprintf(h, "%s\x00%x\n", label, sum)
	return nil
}

// fileSum returns the SHA-256 of the file at path.
func fileSum(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return h.Sum(nil), nil
}

// within reports whether path lies inside dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// relOr returns path relative to dir when it lies inside dir, else path.
func relOr(dir, path string) string {
	if within(path, dir) {
		if rel, err := filepath.Rel(dir, path); err == nil {
			return rel
		}
	}
	return path
}
