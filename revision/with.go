package revision

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// File is a file to add to every materialised commit's package, such as
// a benchmark that did not exist yet in older commits.
type File struct {
	Name string // base name, e.g. "get_bench_test.go"
	Data []byte
}

// ReadFiles reads the files at paths as Files named by their base names.
// Two files of the same name are refused.
func ReadFiles(paths []string) ([]File, error) {
	var out []File
	seen := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		name := filepath.Base(p)
		if prev, ok := seen[name]; ok {
			return nil, fmt.Errorf("%s and %s have the same name; files are added to the package by name", prev, p)
		}
		seen[name] = p
		out = append(out, File{Name: name, Data: data})
	}
	return out, nil
}

// MaterializeWith lays out the commit rev names, as Materialize does, with
// files added to the package directory pkg (relative to the module
// directory; a file of the same name is replaced). The result has a cache
// directory of its own, $CACHE/src/rev-<hash>-with-<files' hash>/, so the
// plain export of the commit is never changed, and the user's working
// tree is never touched. With no files it is Materialize for a commit.
func (r *Repo) MaterializeWith(ctx context.Context, rev, cacheDir, pkg string, files []File) (*Source, error) {
	full, err := r.resolve(ctx, rev)
	if err != nil {
		return nil, fmt.Errorf("%q is not a git revision of %s: %v", rev, r.Top, err)
	}
	if len(files) == 0 {
		return r.commit(ctx, rev, full, cacheDir)
	}
	rel := path.Clean(filepath.ToSlash(pkg))
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, fmt.Errorf("package %q leaves the module directory", pkg)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", rel)
	for _, f := range files {
		if f.Name != filepath.Base(f.Name) || !filepath.IsLocal(f.Name) {
			return nil, fmt.Errorf("file name %q: want a base name", f.Name)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f.Name, len(f.Data))
		h.Write(f.Data)
	}
	dest := filepath.Join(cacheDir, "src", "rev-"+full+"-with-"+hex.EncodeToString(h.Sum(nil))[:16])
	return r.export(ctx, rev, full, dest, rel, files)
}

// addFiles writes files into the package directory pkg under modDir,
// which must exist: a commit without the package cannot take its
// benchmark.
func addFiles(modDir, pkg string, files []File) error {
	if len(files) == 0 {
		return nil
	}
	dir := filepath.Join(modDir, filepath.FromSlash(pkg))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("the commit has no package %s to add %s to", pkg, names(files))
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return fmt.Errorf("adding %s: %w", f.Name, err)
		}
	}
	return nil
}

func names(files []File) string {
	var ns []string
	for _, f := range files {
		ns = append(ns, f.Name)
	}
	return strings.Join(ns, ", ")
}
