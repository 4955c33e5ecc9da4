package revision

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// historyRepo makes a repository with a first-parent line c0…c4, where
// c3 merges a side branch of two commits (s1, s2) forked at c1, and a
// branch "other" that forks at c1 with one commit of its own.
func historyRepo(t *testing.T) string {
	top := t.TempDir()
	gitT(t, top, "init", "-q", "-b", "main")
	commit := func(name, text string) {
		write(t, filepath.Join(top, "mod", name), text)
		gitT(t, top, "add", ".")
		gitT(t, top, "commit", "-q", "-m", name+" "+strings.TrimSpace(text))
	}
	write(t, filepath.Join(top, "mod", "go.mod"), "module m\n")
	commit("a.go", "c0")
	commit("a.go", "c1")
	gitT(t, top, "branch", "side")
	gitT(t, top, "branch", "other")
	commit("a.go", "c2")
	gitT(t, top, "checkout", "-q", "side")
	commit("s.go", "s1")
	commit("s.go", "s2")
	gitT(t, top, "checkout", "-q", "other")
	commit("o.go", "o1")
	gitT(t, top, "checkout", "-q", "main")
	gitT(t, top, "merge", "-q", "--no-ff", "-m", "c3 merge side", "side")
	commit("a.go", "c4")
	return top
}

func TestFirstParent(t *testing.T) {
	top := historyRepo(t)
	r, err := Open(context.Background(), filepath.Join(top, "mod"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		good, bad string
		want      []string // subjects, GOOD first
		err       string
	}{
		{good: "main~4", bad: "main", want: []string{"a.go c0", "a.go c1", "a.go c2", "c3 merge side", "a.go c4"}},
		{good: "main~1", bad: "main", want: []string{"c3 merge side", "a.go c4"}},
		{good: "main~3", bad: "main~1", want: []string{"a.go c1", "a.go c2", "c3 merge side"}},
		{good: "main", bad: "main~2", err: "comes after BAD"},
		{good: "main", bad: "main", err: "the same commit"},
		{good: "other", bad: "main", err: "not an ancestor"},
		{good: "nosuch", bad: "main", err: `GOOD "nosuch" is not a commit`},
		{good: "main~1", bad: "nosuch", err: `BAD "nosuch" is not a commit`},
		{good: "--all", bad: "main", err: "looks like a flag"},
	}
	for _, tc := range tests {
		t.Run(tc.good+".."+tc.bad, func(t *testing.T) {
			got, err := r.FirstParent(ctx, tc.good, tc.bad)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var subjects []string
			for _, c := range got {
				subjects = append(subjects, c.Subject)
				if len(c.Hash) != 40 || c.Author != "t" || time.Since(c.AuthorDate) > time.Hour || c.AuthorDate.After(time.Now().Add(time.Minute)) {
					t.Errorf("commit %+v: want a full hash, author t and a recent author date", c)
				}
			}
			if strings.Join(subjects, "|") != strings.Join(tc.want, "|") {
				t.Errorf("history = %q, want %q", subjects, tc.want)
			}
			if last := strings.TrimSpace(gitT(t, top, "rev-parse", tc.bad)); got[len(got)-1].Hash != last {
				t.Errorf("last commit %s, want BAD %s", got[len(got)-1].Hash, last)
			}
		})
	}
}

func TestParseLog(t *testing.T) {
	tests := []struct {
		in   string
		want int
		err  string
	}{
		{in: "", want: 0},
		{in: "h1\x1fs one\x1fa\x1f2024-05-01T10:00:00+02:00\x00\nh2\x1fs two\x1fb\x1f2024-05-02T10:00:00Z\x00", want: 2},
		{in: "h1\x1fs\x1fa\x00", err: "want 4 fields"},
		{in: "h1\x1fs\x1fa\x1fyesterday\x00", err: "author date"},
	}
	for _, tc := range tests {
		got, err := parseLog(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseLog(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != tc.want {
			t.Errorf("parseLog(%q) = %d commits, %v; want %d", tc.in, len(got), err, tc.want)
		}
	}
}

func FuzzParseLog(f *testing.F) {
	f.Add("h1\x1fs one\x1fa\x1f2024-05-01T10:00:00+02:00\x00")
	f.Add("\x00\x00\x1f")
	f.Fuzz(func(t *testing.T, in string) {
		cs, err := parseLog(in)
		if err == nil {
			for _, c := range cs {
				if c.AuthorDate.IsZero() && !strings.Contains(in, "0001-01-01") {
					t.Errorf("commit %+v without a date from %q", c, in)
				}
			}
		}
	})
}

// TestMaterializeWith adds a benchmark file to an old commit's package:
// the file is in the materialised copy, the plain export of the same
// commit stays without it, and the user's repository is unchanged.
func TestMaterializeWith(t *testing.T) {
	top := historyRepo(t)
	ctx := context.Background()
	r, err := Open(ctx, filepath.Join(top, "mod"))
	if err != nil {
		t.Fatal(err)
	}
	status, index := snapshot(t, top)
	cache := t.TempDir()
	bench := File{Name: "bench_test.go", Data: []byte("package m\n")}
	with, err := r.MaterializeWith(ctx, "main~3", cache, ".", []File{bench})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(with.ModDir, "bench_test.go")); got != "package m\n" {
		t.Errorf("added file holds %q", got)
	}
	if got := read(t, filepath.Join(with.ModDir, "a.go")); got != "c1" {
		t.Errorf("a.go = %q, want the commit's c1", got)
	}
	if !strings.HasSuffix(with.Label(), "a.go c1 (+ bench_test.go)") {
		t.Errorf("label %q does not name the added file", with.Label())
	}
	plain, err := r.Materialize(ctx, "main~3", cache)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Root == with.Root {
		t.Fatalf("the export with files shares %s with the plain export", plain.Root)
	}
	if _, err := os.Stat(filepath.Join(plain.ModDir, "bench_test.go")); !os.IsNotExist(err) {
		t.Errorf("the plain export has the added file (%v)", err)
	}
	again, err := r.MaterializeWith(ctx, "main~3", cache, ".", []File{bench})
	if err != nil || again.Root != with.Root {
		t.Errorf("the same commit and files went to %v (%v), want %s again", again, err, with.Root)
	}
	other, err := r.MaterializeWith(ctx, "main~3", cache, ".", []File{{Name: "bench_test.go", Data: []byte("package m // v2\n")}})
	if err != nil || other.Root == with.Root {
		t.Errorf("other file contents share the directory %s (%v)", with.Root, err)
	}
	if _, err := r.MaterializeWith(ctx, "main~3", cache, "nosuch", []File{bench}); err == nil || !strings.Contains(err.Error(), "has no package nosuch") {
		t.Errorf("a missing package directory: err = %v", err)
	}
	if _, err := r.MaterializeWith(ctx, "main~3", cache, "../x", []File{bench}); err == nil {
		t.Error("a package outside the module was accepted")
	}
	if s, i := snapshot(t, top); s != status || i != index {
		t.Errorf("the repository changed:\n%s\nwas\n%s", s, status)
	}
}

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a", "x_test.go"), "a")
	write(t, filepath.Join(dir, "b", "x_test.go"), "b")
	write(t, filepath.Join(dir, "y_test.go"), "y")
	fs, err := ReadFiles([]string{filepath.Join(dir, "a", "x_test.go"), filepath.Join(dir, "y_test.go")})
	if err != nil || len(fs) != 2 || fs[0].Name != "x_test.go" || string(fs[1].Data) != "y" {
		t.Errorf("ReadFiles = %+v, %v", fs, err)
	}
	if _, err := ReadFiles([]string{filepath.Join(dir, "a", "x_test.go"), filepath.Join(dir, "b", "x_test.go")}); err == nil {
		t.Error("two files of one name were accepted")
	}
	if _, err := ReadFiles([]string{filepath.Join(dir, "nosuch.go")}); err == nil {
		t.Error("a missing file was accepted")
	}
}
