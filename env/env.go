// Package env describes the machine and Go toolchain a benchmark run happened
// on, and estimates how noisy that machine is.
//
// Capture returns an ordered list of key/value pairs that every perflab output
// carries, so a reader can tell where a number came from:
//
//	goversion          toolchain that builds the benchmarks (go env GOVERSION)
//	perflab-goversion  toolchain perflab itself was built with
//	goexperiment       GOEXPERIMENT of the building toolchain ("none" if empty)
//	goos, goarch       target of the building toolchain
//	cpu                CPU model from /proc/cpuinfo
//	cores              logical CPUs usable by this process
//	gomaxprocs         GOMAXPROCS setting, or the runtime's default
//	governor           cpufreq scaling governor of cpu0
//	kernel             kernel release
//	loadavg            1, 5 and 15 minute load averages
//	hostname           host name
//	time               capture time, RFC 3339 in UTC
//
// Values that cannot be read (a missing /proc or /sys file, a non-Linux
// system) are "unknown"; only a failing go command is an error.
//
// Noise runs a fixed CPU-bound calibration loop several times and reports the
// coefficient of variation of its durations, a machine-noise estimate that is
// comparable between runs and machines.
package env

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// KV is one environment key and its value.
type KV struct{ Key, Value string }

// Unknown is the value of a key whose source could not be read.
const Unknown = "unknown"

// goEnvInfo is what the go command reports about the building toolchain.
type goEnvInfo struct {
	GOVERSION    string
	GOOS         string
	GOARCH       string
	GOEXPERIMENT string
}

// source holds everything Capture reads, so tests can substitute each part.
type source struct {
	fsys     fs.FS // rooted at the file system root: "proc/cpuinfo"
	goEnv    func(ctx context.Context, dir string, env []string) (goEnvInfo, error)
	uname    func(ctx context.Context) (string, error)
	hostname func() (string, error)
	getenv   func(string) string
	now      func() time.Time
}

func systemSource() source {
	return source{
		fsys:     os.DirFS("/"),
		goEnv:    runGoEnv,
		uname:    runUname,
		hostname: os.Hostname,
		getenv:   os.Getenv,
		now:      time.Now,
	}
}

// Capture describes the machine and the Go toolchain that builds the
// benchmarks. goEnv is extra environment for the go command (for example
// GOTOOLCHAIN=go1.25.0 or GOEXPERIMENT=...), appended to this process's
// environment; the toolchain is learned from
// `go env -json GOVERSION GOOS GOARCH GOEXPERIMENT`, run in dir if dir is
// non-empty. If goEnv sets GOMAXPROCS, that value is reported as gomaxprocs.
//
// The keys are always present and always in the order listed in the package
// documentation. Capture fails only when the go command cannot be run or its
// output cannot be read.
func Capture(ctx context.Context, dir string, goEnv []string) ([]KV, error) {
	return systemSource().capture(ctx, dir, goEnv)
}

func (s source) capture(ctx context.Context, dir string, goEnv []string) ([]KV, error) {
	gi, err := s.goEnv(ctx, dir, goEnv)
	if err != nil {
		return nil, err
	}
	experiment := gi.GOEXPERIMENT
	if experiment == "" {
		experiment = "none"
	}
	kvs := []KV{
		{"goversion", orUnknown(gi.GOVERSION)},
		{"perflab-goversion", runtime.Version()},
		{"goexperiment", experiment},
		{"goos", orUnknown(gi.GOOS)},
		{"goarch", orUnknown(gi.GOARCH)},
		{"cpu", s.cpu()},
		{"cores", strconv.Itoa(runtime.NumCPU())},
		{"gomaxprocs", s.gomaxprocs(goEnv)},
		{"governor", parseGovernor(s.read("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"))},
		{"kernel", s.kernel(ctx)},
		{"loadavg", parseLoadavg(s.read("proc/loadavg"))},
		{"hostname", s.host()},
		{"time", s.now().UTC().Format(time.RFC3339)},
	}
	return kvs, nil
}

// read returns the contents of name in s.fsys, or nil if it cannot be read.
func (s source) read(name string) []byte {
	if s.fsys == nil {
		return nil
	}
	b, err := fs.ReadFile(s.fsys, name)
	if err != nil {
		return nil
	}
	return b
}

func (s source) cpu() string {
	if b := s.read("proc/cpuinfo"); b != nil {
		return parseCPUInfo(b)
	}
	return Unknown
}

func (s source) gomaxprocs(goEnv []string) string {
	// The last assignment wins, as it does for exec.Cmd.Env.
	for i := len(goEnv) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(goEnv[i], "GOMAXPROCS="); ok && v != "" {
			return v
		}
	}
	if s.getenv != nil {
		if v := s.getenv("GOMAXPROCS"); v != "" {
			return v
		}
	}
	return strconv.Itoa(runtime.GOMAXPROCS(0))
}

func (s source) kernel(ctx context.Context) string {
	if v := parseOSRelease(s.read("proc/sys/kernel/osrelease")); v != Unknown {
		return v
	}
	if s.uname != nil {
		if v, err := s.uname(ctx); err == nil {
			if v = strings.Join(strings.Fields(v), " "); v != "" {
				return v
			}
		}
	}
	return runtime.GOOS
}

func (s source) host() string {
	if s.hostname == nil {
		return Unknown
	}
	h, err := s.hostname()
	if err != nil {
		return Unknown
	}
	return orUnknown(strings.TrimSpace(h))
}

// runGoEnv asks the go command on PATH about the toolchain it would use.
func runGoEnv(ctx context.Context, dir string, env []string) (goEnvInfo, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "-json", "GOVERSION", "GOOS", "GOARCH", "GOEXPERIMENT")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			msg = ": " + msg
		}
		return goEnvInfo{}, fmt.Errorf("env: running `go env` in %q failed%s (check that go is on PATH and that GOTOOLCHAIN/GOEXPERIMENT in the config are valid): %w", dirOrCWD(dir), msg, err)
	}
	gi, err := parseGoEnv(out)
	if err != nil {
		return goEnvInfo{}, fmt.Errorf("env: reading `go env -json` output: %w", err)
	}
	return gi, nil
}

// runUname reports the kernel name and release on systems without /proc.
func runUname(ctx context.Context) (string, error) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		return "", fmt.Errorf("env: no uname on %s", runtime.GOOS)
	}
	out, err := exec.CommandContext(ctx, "uname", "-sr").Output()
	if err != nil {
		return "", fmt.Errorf("env: running uname: %w", err)
	}
	return string(out), nil
}

// parseGoEnv decodes the output of `go env -json`.
func parseGoEnv(b []byte) (goEnvInfo, error) {
	var gi goEnvInfo
	if err := json.Unmarshal(b, &gi); err != nil {
		return goEnvInfo{}, fmt.Errorf("want a JSON object with GOVERSION, GOOS, GOARCH and GOEXPERIMENT (is the go command a real Go toolchain?): %w", err)
	}
	if gi.GOVERSION == "" {
		return goEnvInfo{}, fmt.Errorf("go env reported no GOVERSION; use a Go toolchain of version 1.16 or later")
	}
	gi.GOVERSION = oneLine(gi.GOVERSION)
	gi.GOOS = oneLine(gi.GOOS)
	gi.GOARCH = oneLine(gi.GOARCH)
	gi.GOEXPERIMENT = oneLine(gi.GOEXPERIMENT)
	return gi, nil
}

func dirOrCWD(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

func orUnknown(s string) string {
	if s == "" {
		return Unknown
	}
	return s
}

// oneLine collapses runs of white space, including newlines, to one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
