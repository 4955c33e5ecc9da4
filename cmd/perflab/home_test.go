package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/perflab/perflab/store"
)

// TestMain points perflab's data directory at a temporary one, so no test
// stores runs or reports in the data directory of whoever runs the tests.
func TestMain(m *testing.M) {
	code := func() int {
		if os.Getenv("PERFLAB_HOME") == "" {
			d, err := os.MkdirTemp("", "perflab-home-")
			if err != nil {
				panic(err)
			}
			defer os.RemoveAll(d)
			os.Setenv("PERFLAB_HOME", d)
		}
		return m.Run()
	}()
	os.Exit(code)
}

// TestFindHomeReadsTheEnvironment resolves the process's own environment
// and working directory, as the flags' defaults do.
func TestFindHomeReadsTheEnvironment(t *testing.T) {
	tmp := t.TempDir()
	tests := []struct {
		name                   string
		perflabHome, xdg, home string
		want                   string
	}{
		{"PERFLAB_HOME", filepath.Join(tmp, "pl"), filepath.Join(tmp, "xdg"), tmp, filepath.Join(tmp, "pl")},
		{"XDG_DATA_HOME", "", filepath.Join(tmp, "xdg"), tmp, filepath.Join(tmp, "xdg", "perflab")},
		{"HOME", "", "", tmp, filepath.Join(tmp, ".local", "share", "perflab")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			t.Setenv("PERFLAB_HOME", tt.perflabHome)
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			t.Setenv("HOME", tt.home)
			h, err := store.FindHome()
			if err != nil {
				t.Fatal(err)
			}
			if tt.name == "HOME" && slices.Contains([]string{"windows", "darwin", "ios", "plan9"}, runtime.GOOS) {
				t.Skip("the OS default is not ~/.local/share here")
			}
			if h.Dir != tt.want {
				t.Errorf("store.FindHome().Dir = %s, want %s", h.Dir, tt.want)
			}
			if got := defaultDB(); got != filepath.Join(tt.want, "perflab.db") {
				t.Errorf("defaultDB() = %s, want %s", got, filepath.Join(tt.want, "perflab.db"))
			}
			if got := defaultOut(); got != filepath.Join(tt.want, "runs") {
				t.Errorf("defaultOut() = %s, want %s", got, filepath.Join(tt.want, "runs"))
			}
			// The help shows the defaults as they resolve.
			help, _, _ := perflab(t, "help", "run")
			for _, want := range []string{filepath.Join(tt.want, "perflab.db"), filepath.Join(tt.want, "runs")} {
				if !strings.Contains(help, want) {
					t.Errorf("perflab help run does not show the default %s:\n%s", want, help)
				}
			}
		})
	}
}

// TestReadingCommandsUseTheDefault: a command that only reads runs finds
// the default database, and creates nothing when there is none.
func TestReadingCommandsUseTheDefault(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("PERFLAB_HOME", home)
	_, stderr, code := perflab(t, "runs")
	if code != 1 || !strings.Contains(stderr, "no runs stored yet: "+filepath.Join(home, "perflab.db")+" does not exist") {
		t.Errorf("runs without a database: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("perflab runs created %s", home)
	}

	// Once a database is there, every reading command finds it.
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(home, "perflab.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	out, stderr, code := perflab(t, "runs")
	if code != 0 || !strings.HasPrefix(out, "ID") {
		t.Errorf("runs with the default database: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	_, stderr, _ = perflab(t, "report", "latest")
	if !strings.Contains(stderr, "no runs in "+filepath.Join(home, "perflab.db")) {
		t.Errorf("report latest on the empty default database: %q", stderr)
	}
}

// TestLegacyDatabaseNoted: a perflab.db in the working directory stays the
// default, and each command says so once.
func TestLegacyDatabaseNoted(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("PERFLAB_HOME", "")
	xdg := filepath.Join(t.TempDir(), "xdg")
	t.Setenv("XDG_DATA_HOME", xdg)
	db, err := store.Open(filepath.Join(dir, "perflab.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for range 2 {
		out, stderr, code := perflab(t, "runs")
		if code != 0 || !strings.HasPrefix(out, "ID") {
			t.Fatalf("runs: exit %d, stdout %q, stderr %q", code, out, stderr)
		}
		note := "using " + filepath.Join(dir, "perflab.db") + ", found in the current directory"
		if n := strings.Count(stderr, note); n != 1 {
			t.Errorf("stderr says %d times that ./perflab.db is used, want once:\n%s", n, stderr)
		}
	}
	if _, err := os.Stat(xdg); err == nil {
		t.Error("the data directory was created though ./perflab.db is in use")
	}
	// An explicit --db is not noted.
	if _, stderr, _ := perflab(t, "runs", "--db", filepath.Join(dir, "other.db")); strings.Contains(stderr, "found in the current directory") {
		t.Errorf("explicit --db noted as the legacy database: %q", stderr)
	}
}

// TestBenchLeavesTheTreeClean runs perflab bench in a git module with no
// storage flags: the run goes to perflab's data directory, perflab says
// where with full paths, and the module's tree is as it was.
func TestBenchLeavesTheTreeClean(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	mod := throwaway(t)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = mod
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "init")
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("PERFLAB_HOME", home)
	t.Setenv("PERFLAB_CACHE", t.TempDir())
	t.Chdir(mod)
	out, stderr, code := perflab(t, "bench", "./sum", "-bench", "Sum/n=10$", "--rounds", "2", "--benchtime", "100x", "--no-profile")
	if code != 0 {
		t.Fatalf("bench exited %d\n%s\n%s", code, out, stderr)
	}
	if st := git("status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("perflab bench left files in the module:\n%s", st)
	}
	md := filepath.Join(home, "runs", "run-1", "report.md")
	for _, want := range []string{
		"stored: run 1 in " + filepath.Join(home, "perflab.db") + "\n",
		"report: " + md + "\n",
		"report: " + filepath.Join(home, "runs", "run-1", "report.html") + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(md); err != nil {
		t.Errorf("the report is not where perflab said: %v", err)
	}
}
