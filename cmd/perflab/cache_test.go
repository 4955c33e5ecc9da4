package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// cacheFile writes size bytes at dir/rel, last modified age ago.
func cacheFile(t *testing.T, dir, rel string, size int, age time.Duration) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
	return p
}

// setAge sets a directory's modification time.
func setAge(t *testing.T, p string, age time.Duration) {
	t.Helper()
	when := time.Now().Add(-age)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}

func TestCacheShowsSizes(t *testing.T) {
	cache, gocache := t.TempDir(), t.TempDir()
	t.Setenv("GOCACHE", gocache)
	t.Setenv("PERFLAB_HOME", filepath.Join(t.TempDir(), "home"))
	cacheFile(t, cache, "bin/a.test", 1_500_000, time.Hour)
	cacheFile(t, cache, "bin/b.test", 500_000, time.Hour)
	cacheFile(t, cache, "src/rev-1/go.mod", 200_000, time.Hour)
	cacheFile(t, cache, "src/rev-1/pkg/x.go", 100_000, time.Hour)
	cacheFile(t, gocache, "ab/0123-d", 2_000_000, time.Hour)
	cacheFile(t, gocache, "cd/4567-d", 1_000_000, time.Hour)
	cacheFile(t, gocache, "README", 500, time.Hour)

	out, stderr, code := perflab(t, "cache", "--cache", cache)
	if code != 0 {
		t.Fatalf("cache exited %d: %s", code, stderr)
	}
	for _, want := range []string{
		`(?m)^test binaries\s+2\.0 MB\s+2\s+` + regexp.QuoteMeta(filepath.Join(cache, "bin")) + `$`,
		`(?m)^exported sources\s+300\.0 kB\s+1\s+` + regexp.QuoteMeta(filepath.Join(cache, "src")) + `$`,
		`(?m)^Go build cache\s+3\.0 MB\s+3\s+` + regexp.QuoteMeta(gocache) + `$`,
		`perflab's cache holds 2\.3 MB in ` + regexp.QuoteMeta(cache),
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("cache output does not match %s:\n%s", want, out)
		}
	}

	// An empty or missing cache is zero, not an error.
	out, _, code = perflab(t, "cache", "--cache", filepath.Join(t.TempDir(), "none"))
	if code != 0 || !regexp.MustCompile(`(?m)^test binaries\s+0 B\s+0`).MatchString(out) {
		t.Errorf("missing cache: exit %d:\n%s", code, out)
	}
}

func TestCachePrune(t *testing.T) {
	// Entries, oldest first, as (path under the cache, size, age).
	type entry struct {
		rel  string
		size int
		age  time.Duration
	}
	entries := []entry{
		{"bin/.build-left", 50, 48 * time.Hour}, // a killed build's leftover
		{"bin/old.test", 100, 30 * time.Hour},
		{"src/rev-mid", 200, 20 * time.Hour}, // a directory of 2 files
		{"bin/new.test", 300, time.Hour},
		{"bin/.build-now", 1000, time.Minute}, // a build in flight: never touched
	}
	tests := []struct {
		args []string
		left []string // entries left, besides the build in flight
	}{
		{[]string{"prune", "--keep", "1MB"}, []string{"bin/.build-left", "bin/old.test", "src/rev-mid", "bin/new.test"}},
		{[]string{"prune", "--keep", "650"}, []string{"bin/.build-left", "bin/old.test", "src/rev-mid", "bin/new.test"}},
		{[]string{"prune", "--keep", "600"}, []string{"bin/old.test", "src/rev-mid", "bin/new.test"}},
		{[]string{"prune", "--keep", "599"}, []string{"src/rev-mid", "bin/new.test"}},
		{[]string{"prune", "--keep", "300"}, []string{"bin/new.test"}},
		{[]string{"prune", "--keep", "299"}, nil},
		{[]string{"prune", "--keep", "0"}, nil},
		{[]string{"clean"}, nil},
		{[]string{"prune"}, []string{"bin/.build-left", "bin/old.test", "src/rev-mid", "bin/new.test"}}, // default --keep 1GB
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cache := t.TempDir()
			for _, e := range entries {
				if e.rel == "src/rev-mid" {
					cacheFile(t, cache, e.rel+"/a", e.size/2, e.age)
					cacheFile(t, cache, e.rel+"/sub/b", e.size/2, e.age)
					setAge(t, filepath.Join(cache, e.rel, "sub"), e.age)
				} else {
					cacheFile(t, cache, e.rel, e.size, e.age)
				}
				setAge(t, filepath.Join(cache, e.rel), e.age)
			}
			out, stderr, code := perflab(t, append(append([]string{"cache"}, tt.args...), "--cache", cache, "-v")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var left []string
			for _, e := range entries {
				if _, err := os.Stat(filepath.Join(cache, e.rel)); err == nil && e.rel != "bin/.build-now" {
					left = append(left, e.rel)
				}
			}
			if !slices.Equal(left, tt.left) {
				t.Errorf("left %q, want %q\n%s", left, tt.left, out)
			}
			if _, err := os.Stat(filepath.Join(cache, "bin/.build-now")); err != nil {
				t.Errorf("the build in flight was removed: %v", err)
			}
			removed := len(entries) - 1 - len(tt.left)
			if n := strings.Count(out, "removed "+cache); n != removed {
				t.Errorf("-v names %d removed entries, want %d:\n%s", n, removed, out)
			}
			if !strings.Contains(out, "perflab cache: removed ") {
				t.Errorf("no summary line:\n%s", out)
			}
		})
	}
}

func TestCacheCleanGo(t *testing.T) {
	cache, gocache := t.TempDir(), t.TempDir()
	t.Setenv("GOCACHE", gocache)
	bin := cacheFile(t, cache, "bin/a.test", 100, time.Hour)
	built := cacheFile(t, gocache, "ab/0123-d", 4000, time.Hour)

	// Without --go the Go build cache stays.
	if _, stderr, code := perflab(t, "cache", "clean", "--cache", cache); code != 0 {
		t.Fatalf("clean exited %d: %s", code, stderr)
	}
	if _, err := os.Stat(bin); err == nil {
		t.Error("clean left perflab's test binary")
	}
	if _, err := os.Stat(built); err != nil {
		t.Errorf("clean without --go touched the Go build cache: %v", err)
	}

	out, stderr, code := perflab(t, "cache", "clean", "--go", "--cache", cache)
	if code != 0 {
		t.Fatalf("clean --go exited %d: %s", code, stderr)
	}
	if _, err := os.Stat(built); err == nil {
		t.Error("clean --go left the Go build cache's entry")
	}
	if want := "go clean -cache: the Go build cache " + gocache + " went from 4.0 kB to 0 B"; !strings.Contains(out, want) {
		t.Errorf("clean --go output lacks %q:\n%s", want, out)
	}
}

func TestCacheUsageErrors(t *testing.T) {
	cache := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"cache", "frob"}, 2, `unknown action "frob"`},
		{[]string{"cache", "prune", "clean"}, 2, "want at most one of prune or clean"},
		{[]string{"cache", "--keep", "5MB"}, 2, "--keep goes with prune"},
		{[]string{"cache", "clean", "--keep", "5MB"}, 2, "--keep goes with prune"},
		{[]string{"cache", "--go"}, 2, "--go goes with prune or clean"},
		{[]string{"cache", "prune", "--keep", "5XB"}, 2, "want a number of bytes"},
	}
	for _, tt := range tests {
		_, stderr, code := perflab(t, append(tt.args, "--cache", cache)...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("perflab %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), code, stderr, tt.code, tt.want)
		}
	}
	// A removal that fails is an error, with exit status 1.
	if os.Getuid() == 0 {
		t.Skip("root removes read-only files")
	}
	locked := cacheFile(t, cache, "bin/a.test", 100, time.Hour)
	if err := os.Chmod(filepath.Dir(locked), 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Dir(locked), 0o755)
	if _, stderr, code := perflab(t, "cache", "clean", "--cache", cache); code != 1 || !strings.Contains(stderr, "could not remove 1 entries") {
		t.Errorf("clean of a read-only cache: exit %d, stderr %q", code, stderr)
	}
}
