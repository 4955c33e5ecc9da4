// Package builtin lists perflab's built-in experiments and writes their
// sources out to a cache directory where the go command can build them, so
// the same code path serves a checkout and an installed binary.
package builtin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perflab/perflab"
	"github.com/perflab/perflab/spec"
)

// Names returns the names of the built-in experiments, sorted.
func Names() []string {
	entries, err := fs.ReadDir(perflab.Sources, "experiments")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if _, err := fs.Stat(perflab.Sources, path.Join("experiments", e.Name(), "spec.toml")); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

// Has reports whether name is a built-in experiment.
func Has(name string) bool { return slices.Contains(Names(), name) }

// Spec parses a built-in experiment's spec without writing anything out.
// Its Dir is not usable for building; use Load for that.
func Spec(name string) (*spec.Spec, error) {
	if !Has(name) {
		return nil, fmt.Errorf("no built-in experiment %q (have: %s)", name, strings.Join(Names(), ", "))
	}
	p := path.Join("experiments", name, "spec.toml")
	data, err := fs.ReadFile(perflab.Sources, p)
	if err != nil {
		return nil, fmt.Errorf("reading built-in %s: %w", p, err)
	}
	return spec.Parse(p, data)
}

// Load writes the built-in sources under cacheDir (once per content) and
// loads the experiment's spec from there, so its Dir is buildable.
func Load(name, cacheDir string) (*spec.Spec, error) {
	if !Has(name) {
		return nil, fmt.Errorf("no built-in experiment %q (have: %s)", name, strings.Join(Names(), ", "))
	}
	root, err := Materialize(cacheDir)
	if err != nil {
		return nil, err
	}
	return spec.Load(filepath.Join(root, "experiments", name, "spec.toml"))
}

// Materialize writes the embedded sources into cacheDir/src/<content hash>
// and returns that directory. It is a no-op when the directory is complete;
// a partial write is never used (it is written under a temporary name and
// renamed into place).
func Materialize(cacheDir string) (string, error) {
	sum := sha256.New()
	err := fs.WalkDir(perflab.Sources, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(perflab.Sources, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(sum, "%s\x00%d\x00", p, len(data))
		sum.Write(data)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hashing built-in sources: %w", err)
	}
	dst := filepath.Join(cacheDir, "src", hex.EncodeToString(sum.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dst, "go.mod")); err == nil {
		return dst, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("creating cache dir: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".tmp-")
	if err != nil {
		return "", fmt.Errorf("creating cache dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.CopyFS(tmp, perflab.Sources); err != nil {
		return "", fmt.Errorf("writing built-in sources to %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		if _, statErr := os.Stat(filepath.Join(dst, "go.mod")); statErr == nil {
			return dst, nil // another perflab wrote it first
		}
		return "", fmt.Errorf("moving built-in sources into %s: %w", dst, err)
	}
	return dst, nil
}

// CacheDir returns perflab's default cache directory: $PERFLAB_CACHE, or
// perflab under the user cache directory.
func CacheDir() (string, error) {
	if d := os.Getenv("PERFLAB_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding a cache directory (set PERFLAB_CACHE): %w", err)
	}
	return filepath.Join(d, "perflab"), nil
}
