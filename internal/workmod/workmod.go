// Package workmod makes throwaway git repositories of a tiny Go module
// for tests that build and run benchmarks at several revisions (packages
// ab and culprit, perflab's ab and bisect): package work, whose
// BenchmarkWork runs Work(N), N steps of a chain of dependent
// operations, so a commit that changes N changes the benchmark's time in
// proportion.
package workmod

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/store"
)

// Go is work.go with N steps (a %d verb).
const Go = `// Package work has one CPU-bound function whose cost is linear in n.
package work

// N is how much work one call does.
const N = %d

// Work runs n steps of a xorshift generator, a chain of dependent operations.
func Work(n int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}
`

// Mod and TestGo are the module's go.mod and its benchmark.
const (
	Mod    = "module example.com/work\n\ngo 1.22\n"
	TestGo = `package work

import "testing"

var sink uint64

func BenchmarkWork(b *testing.B) {
	for range b.N {
		sink = Work(N)
	}
}
`
)

// ExtraTestGo adds BenchmarkWorkExtra, one step a call.
const ExtraTestGo = "package work\n\nimport \"testing\"\n\nfunc BenchmarkWorkExtra(b *testing.B) {\n\tfor range b.N {\n\t\tsink = Work(1)\n\t}\n}\n"

// Commit is one commit of a repository.
type Commit struct {
	Steps   int               // Work's steps; 0 commits a work.go that does not compile
	Subject string            // the commit message
	Files   map[string]string // further files written before the commit
}

// Repo makes a repository in a new temporary directory with the given
// commits, each writing work.go with its steps (and a comment naming
// the commit, so every commit changes it), and returns its directory and
// every commit's full hash, oldest first.
func Repo(t testing.TB, commits ...Commit) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "-q", "-b", "main")
	Write(t, dir, map[string]string{"go.mod": Mod, "work_test.go": TestGo})
	var hashes []string
	for i, c := range commits {
		// Every commit changes work.go.
		text := fmt.Sprintf(Go, c.Steps) + fmt.Sprintf("\n// Revision %d.\n", i)
		if c.Steps == 0 {
			text = "package work\n\nthis does not compile\n"
		}
		Write(t, dir, map[string]string{"work.go": text})
		Write(t, dir, c.Files)
		Git(t, dir, "add", ".")
		Git(t, dir, "commit", "-q", "-m", c.Subject)
		hashes = append(hashes, strings.TrimSpace(Git(t, dir, "rev-parse", "HEAD")))
	}
	return dir, hashes
}

// Git runs git in dir with a fixed identity, no optional locks and no
// user configuration, and returns its output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Write writes files (name → text) under dir, making directories.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Store opens a database in a new temporary directory, closed when the
// test ends, and returns the directory (for a run's cache and artifacts)
// with it.
func Store(t testing.TB) (string, *store.DB) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "perflab.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return dir, db
}
