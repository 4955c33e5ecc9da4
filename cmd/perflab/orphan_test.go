package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNoChildOutlivesPerflab kills perflab with SIGKILL while a benchmark
// runs, and checks that the benchmark process does not survive it.
func TestNoChildOutlivesPerflab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perflab and runs a test binary")
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("needs /proc to look for leftover processes")
	}
	mod := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pid")
	files := map[string]string{
		"go.mod": "module example.com/hang\n\ngo 1.26\n",
		"hang_test.go": `package hang

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func BenchmarkHang(b *testing.B) {
	os.WriteFile(os.Getenv("HANG_PID_FILE"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	time.Sleep(time.Minute)
}
`,
		"spec.toml": `name = "hang"
driver = "gotest"
benchmarks = ["BenchmarkHang"]

[mode.quick]
rounds = 6
benchtime = "1x"

[mode.full]
rounds = 6
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := buildPerflab(t)
	tmp := t.TempDir()
	t.Setenv("HANG_PID_FILE", pidFile)
	// The benchmark first runs in the listing pass before round 1.
	cmd, _, _ := startUntil(t, bin, "test binary", "run", filepath.Join(mod, "spec.toml"), "--quick", "--no-profile",
		"--db", filepath.Join(tmp, "db"), "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"))
	var pid int
	for deadline := time.Now().Add(time.Minute); pid == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the benchmark never started")
		}
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if !alive(pid) {
		t.Fatalf("benchmark %d is not running before the kill", pid)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	// Wait, not startUntil's wait: an orphaned benchmark would hold the
	// stderr pipe open, and reading it to its end would block; Wait closes
	// it once perflab is gone, and its last lines are not needed here.
	cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); alive(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("benchmark process %d outlived perflab by 10s", pid)
		}
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}
