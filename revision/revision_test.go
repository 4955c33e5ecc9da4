package revision

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitT runs git in dir for a test, with a fixed identity and no optional locks.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot is what must not change in the user's repository: the
// porcelain status and the index file's bytes.
func snapshot(t *testing.T, top string) (status string, index [32]byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(top, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	index = sha256.Sum256(b)
	return gitT(t, top, "status", "--porcelain", "--untracked-files=all"), index
}

// testRepo makes a repository whose module lives in mod/: two commits
// (v1, v2), then a staged change, an unstaged change (v3), an untracked
// file and an ignored one.
func testRepo(t *testing.T) string {
	top := t.TempDir()
	gitT(t, top, "init", "-q", "-b", "main")
	write(t, filepath.Join(top, "mod", "go.mod"), "module m\n")
	write(t, filepath.Join(top, "mod", "a.go"), "v1\n")
	write(t, filepath.Join(top, ".gitignore"), "ignored.txt\n")
	gitT(t, top, "add", ".")
	gitT(t, top, "commit", "-q", "-m", "first")
	write(t, filepath.Join(top, "mod", "a.go"), "v2\n")
	gitT(t, top, "commit", "-q", "-am", "second: a is v2")
	write(t, filepath.Join(top, "mod", "staged.go"), "staged\n")
	gitT(t, top, "add", "mod/staged.go")
	write(t, filepath.Join(top, "mod", "a.go"), "v3\n")
	write(t, filepath.Join(top, "mod", "untracked.go"), "untracked\n")
	write(t, filepath.Join(top, "mod", "ignored.txt"), "ignored\n")
	return top
}

func TestMaterialize(t *testing.T) {
	top := testRepo(t)
	cache := t.TempDir()
	ctx := context.Background()
	status0, index0 := snapshot(t, top)

	repo, err := Open(ctx, filepath.Join(top, "mod"))
	if err != nil {
		t.Fatal(err)
	}
	if repo.Rel != "mod" {
		t.Errorf("Rel = %q, want mod", repo.Rel)
	}
	tests := []struct {
		arg     string
		kind    string
		subject string
		files   map[string]string // in the module dir; "" means absent
	}{
		{"HEAD~1", Commit, "first", map[string]string{"a.go": "v1\n", "staged.go": "", "untracked.go": ""}},
		{"main", Commit, "second: a is v2", map[string]string{"a.go": "v2\n", "staged.go": ""}},
		{"", Worktree, "second: a is v2", map[string]string{"a.go": "v3\n", "staged.go": "staged\n", "untracked.go": "untracked\n", "ignored.txt": ""}},
	}
	for _, tt := range tests {
		t.Run("arg="+tt.arg, func(t *testing.T) {
			s, err := repo.Materialize(ctx, tt.arg, cache)
			if err != nil {
				t.Fatal(err)
			}
			if s.Kind != tt.kind || s.Subject != tt.subject || len(s.Commit) != 40 {
				t.Errorf("source = %+v, want kind %s, subject %q and a full hash", s, tt.kind, tt.subject)
			}
			if s.ModDir != filepath.Join(s.Root, "mod") || !strings.HasPrefix(s.Root, cache) {
				t.Errorf("Root %s, ModDir %s: want a directory in the cache with mod/ inside", s.Root, s.ModDir)
			}
			for name, want := range tt.files {
				got, err := os.ReadFile(filepath.Join(s.ModDir, name))
				if want == "" {
					if err == nil {
						t.Errorf("%s is in the %s copy, want it absent", name, tt.kind)
					}
					continue
				}
				if string(got) != want {
					t.Errorf("%s = %q (%v), want %q", name, got, err, want)
				}
			}
			if tt.kind == Worktree && (!s.Dirty || !strings.Contains(s.Label(), "uncommitted")) {
				t.Errorf("worktree label %q: want it marked as having uncommitted changes", s.Label())
			}
			again, err := repo.Materialize(ctx, tt.arg, cache)
			if err != nil || again.Root != s.Root {
				t.Errorf("second materialisation = %v, %v; want the cached %s", again, err, s.Root)
			}
		})
	}
	// A change in the working tree makes another copy.
	write(t, filepath.Join(top, "mod", "a.go"), "v4\n")
	s, err := repo.Materialize(ctx, "", cache)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(s.ModDir, "a.go")); got != "v4\n" {
		t.Errorf("after an edit the copy holds %q, want v4", got)
	}
	write(t, filepath.Join(top, "mod", "a.go"), "v3\n")

	status1, index1 := snapshot(t, top)
	if status1 != status0 || index1 != index0 {
		t.Errorf("the repository changed:\nstatus before:\n%s\nafter:\n%s\nindex equal: %v", status0, status1, index0 == index1)
	}
	if got := read(t, filepath.Join(top, "mod", "a.go")); got != "v3\n" {
		t.Errorf("working tree a.go = %q, want v3", got)
	}
	if wt := gitT(t, top, "worktree", "list"); strings.Count(wt, "\n") != 1 {
		t.Errorf("git worktree list = %q, want only the main tree", wt)
	}
}

func TestMaterializeErrors(t *testing.T) {
	top := testRepo(t)
	ctx := context.Background()
	repo, err := Open(ctx, top)
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"no-such-branch", "./no-such-dir", "--output=x"} {
		if _, err := repo.Materialize(ctx, arg, t.TempDir()); err == nil {
			t.Errorf("Materialize(%q) succeeded, want an error", arg)
		}
	}
	d, err := repo.Materialize(ctx, filepath.Join(top, "mod"), t.TempDir())
	if err != nil || d.Kind != Dir || d.ModDir != filepath.Join(top, "mod") {
		t.Errorf("directory = %+v, %v; want it used in place", d, err)
	}
	if _, err := Open(ctx, t.TempDir()); err == nil {
		t.Error("Open outside a repository succeeded")
	}
}

func TestUntarRefusesEscapes(t *testing.T) {
	for _, name := range []string{"../evil", "/abs/evil", "a/../../evil"} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		_ = tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: 1})
		_, _ = tw.Write([]byte("x"))
		_ = tw.Close()
		dir := t.TempDir()
		if err := untar(&buf, filepath.Join(dir, "in")); err == nil {
			t.Errorf("untar accepted %q", name)
		}
		if _, err := os.Stat(filepath.Join(dir, "evil")); err == nil {
			t.Errorf("untar wrote outside its directory for %q", name)
		}
	}
}

func FuzzUntar(f *testing.F) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	_ = tw.WriteHeader(&tar.Header{Name: "d/", Typeflag: tar.TypeDir, Mode: 0o755})
	_ = tw.WriteHeader(&tar.Header{Name: "d/f", Typeflag: tar.TypeReg, Mode: 0o644, Size: 2})
	_, _ = tw.Write([]byte("hi"))
	_ = tw.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("not a tar"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "in")
		_ = untar(bytes.NewReader(data), dir)
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "in" {
				t.Fatalf("untar wrote %s outside its directory", e.Name())
			}
		}
	})
}

func TestUntarRefusesWritesThroughLinks(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	parent := t.TempDir()
	_ = tw.WriteHeader(&tar.Header{Name: "l", Typeflag: tar.TypeSymlink, Linkname: parent})
	_ = tw.WriteHeader(&tar.Header{Name: "l/evil", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1})
	_, _ = tw.Write([]byte("x"))
	_ = tw.Close()
	if err := untar(&buf, filepath.Join(parent, "in")); err == nil {
		t.Error("untar wrote through a symbolic link")
	}
	if _, err := os.Stat(filepath.Join(parent, "evil")); err == nil {
		t.Error("a file appeared outside the directory")
	}
}
