package cache

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"0", 0, false},
		{"1234", 1234, false},
		{"500MB", 500_000_000, false},
		{"500mb", 500_000_000, false},
		{"1.5GB", 1_500_000_000, false},
		{"2GiB", 2 << 30, false},
		{"10 KiB", 10 << 10, false},
		{"3k", 3000, false},
		{"1TB", 1e12, false},
		{"", 0, true},
		{"MB", 0, true},
		{"-1MB", 0, true},
		{"5XB", 0, true},
		{"1.2.3", 0, true},
		{"99999999999TB", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1_500_000: "1.5 MB", 999_990: "1.0 MB", 2_000_000_000: "2.0 GB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
		if back, err := ParseSize(strings.ReplaceAll(FormatSize(n), " ", "")); err != nil {
			t.Errorf("ParseSize cannot read FormatSize(%d) = %q: %v", n, FormatSize(n), err)
		} else if n >= 1000 && (back < n*99/100 || back > n*101/100) || n < 1000 && back != n {
			t.Errorf("ParseSize(FormatSize(%d)) = %d", n, back)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "500MB", "1.5GB", "2GiB", "10 KiB", "", "5XB", "1.2.3", "99999999999TB", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && n < 0 {
			t.Errorf("ParseSize(%q) = %d: a size is never negative", s, n)
		}
	})
}

// TestPrune prunes a cache of a killed build's leftover, two binaries, a
// tree of sources and a build in flight: oldest first, the build in
// flight never, each removal reported.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string, size int, age time.Duration) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		for q := p; q != dir; q = filepath.Dir(q) {
			if err := os.Chtimes(q, when, when); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("bin/.build-left", 50, 48*time.Hour)
	write("bin/old.test", 100, 30*time.Hour)
	write("src/rev-mid/a", 100, 20*time.Hour)
	write("src/rev-mid/sub/b", 100, 20*time.Hour)
	write("bin/new.test", 300, time.Hour)
	write("bin/.build-now", 1000, time.Minute)

	sizes, err := Sizes(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 2 || sizes[0].Size != 450 || sizes[0].Entries != 3 || sizes[1].Size != 200 || sizes[1].Entries != 1 {
		t.Errorf("Sizes = %+v; want bin 450 B in 3 entries, src 200 B in 1 (the build in flight not counted)", sizes)
	}
	var names []string
	pr, err := Prune(dir, 350, func(e Entry) { names = append(names, filepath.Base(e.Path)) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".build-left", "old.test", "rev-mid"}; !slices.Equal(names, want) {
		t.Errorf("removed %q, want %q (oldest first, until 350 B are left)", names, want)
	}
	if pr.Entries != 4 || pr.Total != 650 || pr.Freed != 350 || len(pr.Removed) != 3 {
		t.Errorf("Prune = %+v", pr)
	}
	for _, rel := range []string{"bin/new.test", "bin/.build-now"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Errorf("%s was removed: %v", rel, err)
		}
	}
	if !strings.HasPrefix(FormatSize(pr.Freed), "350 B") {
		t.Errorf("FormatSize(350) = %q", FormatSize(pr.Freed))
	}
}
