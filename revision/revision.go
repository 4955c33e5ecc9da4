// Package revision turns a git revision, the working tree or a directory
// into a directory of source perflab can build, without touching the
// user's working tree or index.
//
// A commit is exported with git archive into perflab's cache
// ($CACHE/src/rev-<hash>/), once per commit. The working tree (the
// default NEW side of perflab ab) is copied, uncommitted changes
// included: every tracked file as it is on disk and every untracked file
// git does not ignore, into $CACHE/src/wt-<content hash>/. A directory is
// used where it is. Every git command runs with GIT_OPTIONAL_LOCKS=0, so
// not even git's opportunistic index refresh writes to the repository.
package revision

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Kinds of source.
const (
	Commit   = "commit"   // a git revision, exported from the repository
	Worktree = "worktree" // the working tree, uncommitted changes included
	Dir      = "dir"      // a directory, used in place
)

// Source is one side of a comparison, materialised.
type Source struct {
	Arg     string   // as given ("" for the working tree)
	Kind    string   // Commit, Worktree or Dir
	Commit  string   // the commit's full hash; for Worktree, HEAD's; "" for Dir
	Subject string   // the commit's subject line; for Worktree, HEAD's
	Dirty   bool     // Worktree only: there are uncommitted changes
	Root    string   // the materialised repository root (Dir: the directory)
	ModDir  string   // where the go command runs: Root joined with the module's path in the repository
	Added   []string // Commit only: names of files added to the package (MaterializeWith)
}

// Short is the commit's abbreviated hash, or the directory for Dir.
func (s *Source) Short() string {
	if s.Kind == Dir {
		return s.Root
	}
	if len(s.Commit) > 12 {
		return s.Commit[:12]
	}
	return s.Commit
}

// Label names the source for people, e.g. "3f2a1bc9d0e1 Make Work do more"
// or "working tree: HEAD 3f2a1bc9d0e1 + uncommitted changes".
func (s *Source) Label() string {
	switch s.Kind {
	case Dir:
		return "directory " + s.Root
	case Worktree:
		l := "working tree: HEAD " + s.Short()
		if s.Dirty {
			l += " + uncommitted changes"
		}
		return l + " (" + s.Subject + ")"
	}
	l := s.Short() + " " + s.Subject
	if len(s.Added) > 0 {
		l += " (+ " + strings.Join(s.Added, ", ") + ")"
	}
	return l
}

// Repo is the git repository holding a module directory.
type Repo struct {
	Top string // the repository's top-level directory
	Rel string // the module directory relative to Top ("." at the top)
}

// Open finds the repository that holds dir (a module's directory).
func Open(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	out, err := git(ctx, abs, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a git repository (%v); give OLD and NEW as directories instead, or run from a clone", abs, err)
	}
	top := strings.TrimSpace(string(out))
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%s is not inside the repository %s", abs, top)
	}
	return &Repo{Top: top, Rel: rel}, nil
}

// Materialize resolves arg and lays its source out under cacheDir/src:
// "" is the working tree, an existing directory is used in place (it
// stands for the module directory, like -C), anything else is a git
// revision of the repository (a commit, branch, tag, HEAD~1…). A name that
// is both a revision and a directory is taken as the revision; write
// ./name for the directory.
func (r *Repo) Materialize(ctx context.Context, arg, cacheDir string) (*Source, error) {
	if arg == "" {
		return r.worktree(ctx, cacheDir)
	}
	explicitDir := strings.HasPrefix(arg, "./") || strings.HasPrefix(arg, "../") || filepath.IsAbs(arg)
	if !explicitDir {
		if full, err := r.resolve(ctx, arg); err == nil {
			return r.commit(ctx, arg, full, cacheDir)
		}
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return Directory(arg)
	}
	if explicitDir {
		return nil, fmt.Errorf("%s is not a directory", arg)
	}
	_, err := r.resolve(ctx, arg)
	return nil, fmt.Errorf("%q is neither a git revision of %s nor a directory: %v", arg, r.Top, err)
}

// Directory is a source used where it is: dir stands for the module's
// directory (where go.mod is, or the directory -C names).
func Directory(dir string) (*Source, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	return &Source{Arg: dir, Kind: Dir, Root: abs, ModDir: abs}, nil
}

// resolve returns the full hash of the commit arg names.
func (r *Repo) resolve(ctx context.Context, arg string) (string, error) {
	if strings.HasPrefix(arg, "-") {
		return "", fmt.Errorf("%q looks like a flag, not a revision", arg)
	}
	out, err := git(ctx, r.Top, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", arg+"^{commit}")
	if err != nil {
		return "", errors.New("no such commit")
	}
	return strings.TrimSpace(string(out)), nil
}

func (r *Repo) subject(ctx context.Context, commit string) string {
	out, err := git(ctx, r.Top, nil, "log", "-1", "--format=%s", commit)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// commit exports a commit into cacheDir/src/rev-<hash>, once.
func (r *Repo) commit(ctx context.Context, arg, full, cacheDir string) (*Source, error) {
	return r.export(ctx, arg, full, filepath.Join(cacheDir, "src", "rev-"+full), "", nil)
}

// export exports a commit into dest, once, and writes files into its
// directory pkg (relative to the module directory).
func (r *Repo) export(ctx context.Context, arg, full, dest, pkg string, files []File) (*Source, error) {
	s := &Source{Arg: arg, Kind: Commit, Commit: full, Subject: r.subject(ctx, full)}
	for _, f := range files {
		s.Added = append(s.Added, f.Name)
	}
	err := fill(dest, func(tmp string) error {
		cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", full)
		cmd.Dir = r.Top
		cmd.Env = gitEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("git archive: %w; install git", err)
		}
		xerr := untar(pipe, tmp)
		_, _ = io.Copy(io.Discard, pipe)
		werr := cmd.Wait()
		if werr != nil {
			return fmt.Errorf("git archive %s: %v: %s", s.Short(), werr, strings.TrimSpace(stderr.String()))
		}
		if xerr != nil {
			return xerr
		}
		return addFiles(filepath.Join(tmp, r.Rel), pkg, files)
	})
	if err != nil {
		return nil, fmt.Errorf("exporting %s (%s) into %s: %w", arg, s.Short(), dest, err)
	}
	return r.finish(s, dest)
}

func (r *Repo) finish(s *Source, root string) (*Source, error) {
	s.Root = root
	s.ModDir = filepath.Join(root, r.Rel)
	if st, err := os.Stat(s.ModDir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s has no directory %s (the module's place in the repository); was it added later?", s.Label(), r.Rel)
	}
	return s, nil
}

// worktree copies the working tree's tracked and untracked-but-not-ignored
// files into cacheDir/src/wt-<content hash>.
func (r *Repo) worktree(ctx context.Context, cacheDir string) (*Source, error) {
	s := &Source{Kind: Worktree}
	if out, err := git(ctx, r.Top, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil {
		s.Commit = strings.TrimSpace(string(out))
		s.Subject = r.subject(ctx, s.Commit)
	}
	out, err := git(ctx, r.Top, nil, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return nil, fmt.Errorf("reading the working tree's status: %w", err)
	}
	s.Dirty = len(bytes.TrimSpace(out)) > 0
	list, err := git(ctx, r.Top, nil, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("listing the working tree's files: %w", err)
	}
	var files []string
	seen := map[string]bool{}
	for _, f := range strings.Split(string(list), "\x00") {
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		if _, err := os.Lstat(filepath.Join(r.Top, f)); err != nil {
			continue // deleted in the working tree
		}
		files = append(files, f)
	}
	h := sha256.New()
	for _, f := range files {
		p := filepath.Join(r.Top, f)
		st, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s\x00%o\x00", f, st.Mode())
		if st.Mode()&os.ModeSymlink != 0 {
			t, _ := os.Readlink(p)
			fmt.Fprintf(h, "%s\n", t)
			continue
		}
		if !st.Mode().IsRegular() {
			continue
		}
		fh, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
		fmt.Fprintln(h)
	}
	dest := filepath.Join(cacheDir, "src", "wt-"+hex.EncodeToString(h.Sum(nil))[:24])
	err = fill(dest, func(tmp string) error {
		for _, f := range files {
			if err := copyFile(filepath.Join(r.Top, f), filepath.Join(tmp, f)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("copying the working tree into %s: %w", dest, err)
	}
	return r.finish(s, dest)
}

// fill creates dest by calling write on a fresh temporary directory beside
// it and renaming that into place. An existing dest is complete (it only
// ever appears by rename) and is reused.
func fill(dest string, write func(tmp string) error) error {
	if st, err := os.Stat(dest); err == nil && st.IsDir() {
		return nil
	}
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w; choose a writable --cache", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-"+filepath.Base(dest)+"-")
	if err != nil {
		return fmt.Errorf("creating a temporary directory in %s: %w", parent, err)
	}
	if err := write(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, dest); err != nil {
		os.RemoveAll(tmp)
		if st, serr := os.Stat(dest); serr == nil && st.IsDir() {
			return nil // another perflab made it meanwhile
		}
		return err
	}
	return nil
}

// untar extracts a tar stream into dir, refusing paths that leave it.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	links := map[string]bool{} // symbolic links written so far: nothing is written through one
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the archive: %w", err)
		}
		name := filepath.FromSlash(hdr.Name)
		if !filepath.IsLocal(name) {
			if hdr.Typeflag == tar.TypeXGlobalHeader {
				continue
			}
			return fmt.Errorf("archive entry %q leaves the directory", hdr.Name)
		}
		for d := filepath.Dir(name); d != "."; d = filepath.Dir(d) {
			if links[d] {
				return fmt.Errorf("archive entry %q lies under the symbolic link %s", hdr.Name, d)
			}
		}
		p := filepath.Join(dir, name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(hdr.Mode&0o777)|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("writing %s: %w", hdr.Name, err)
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(hdr.Linkname, p); err != nil {
				return err
			}
			links[name] = true
		}
	}
}

// copyFile copies a regular file or a symbolic link, keeping its mode.
func copyFile(src, dst string) error {
	st, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		t, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(t, dst)
	}
	if !st.Mode().IsRegular() {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm()|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return out.Close()
}

// git runs git in dir without taking optional locks (so it never rewrites
// the index) and returns its standard output.
func git(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("git: %w; install git or put it on PATH", err)
		}
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func gitEnv() []string {
	return append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
}
