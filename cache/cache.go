// Package cache measures and prunes perflab's cache: the compiled test
// binaries (bin/) and the exported sources of built-in experiments and of
// measured revisions (src/) under perflab's cache directory
// (builtin.CacheDir), and the Go build cache beside it. perflab builds
// again whatever it needs next, so pruning loses nothing but time; the
// stored runs (store.Home) are no part of it.
package cache

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Part is a directory of the cache and what it holds.
type Part struct{ Dir, What string }

// Parts are the directories of perflab's cache that Sizes measures and
// Prune prunes.
var Parts = []Part{
	{"bin", "test binaries"},
	{"src", "exported sources"},
}

// DefaultKeep is what Prune keeps unless told otherwise: 1 GB.
const DefaultKeep = 1_000_000_000

// An Entry is one thing the cache holds: a test binary, or a tree of
// exported sources. Entries are pruned whole, oldest first.
type Entry struct {
	Path string
	Size int64     // bytes, of every regular file under a directory
	Mod  time.Time // when it was built, or last used
}

// inFlight is how long a temporary entry (a name starting with ".") is
// taken to belong to a build still going on; older ones are leftovers of
// a killed perflab and are pruned like any other entry.
const inFlight = time.Hour

// Entries lists the entries under dir/part: each top-level file or
// directory, with its size in bytes, leaving out the temporary ones of
// builds going on at now. A missing directory has none.
func Entries(dir, part string, now time.Time) ([]Entry, error) {
	root := filepath.Join(dir, part)
	des, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading perflab's cache: %w", err)
	}
	var out []Entry
	for _, de := range des {
		info, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if strings.HasPrefix(de.Name(), ".") && now.Sub(info.ModTime()) < inFlight {
			continue
		}
		e := Entry{Path: filepath.Join(root, de.Name()), Mod: info.ModTime(), Size: info.Size()}
		if de.IsDir() {
			if e.Size, _, err = DirUsage(e.Path); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// Usage is how much one part of the cache holds.
type Usage struct {
	Part
	Path    string // dir/Part.Dir
	Size    int64
	Entries int
}

// Sizes measures each of Parts under dir.
func Sizes(dir string) ([]Usage, error) {
	var out []Usage
	now := time.Now()
	for _, p := range Parts {
		es, err := Entries(dir, p.Dir, now)
		if err != nil {
			return nil, err
		}
		u := Usage{Part: p, Path: filepath.Join(dir, p.Dir), Entries: len(es)}
		for _, e := range es {
			u.Size += e.Size
		}
		out = append(out, u)
	}
	return out, nil
}

// DirUsage is the total size in bytes of the regular files under dir, and
// how many there are. A missing dir is empty; files removed during the
// walk are skipped.
func DirUsage(dir string) (size int64, files int, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		size += info.Size()
		files++
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("measuring %s: %w", dir, err)
	}
	return size, files, nil
}

// Pruned is what Prune did.
type Pruned struct {
	Removed []Entry // oldest first
	Entries int     // entries there were
	Total   int64   // bytes there were
	Freed   int64   // bytes removed
	Failed  []error // entries that could not be removed
}

// Prune removes the entries of Parts under dir, oldest first, until at
// most keep bytes are left (0: every entry), and calls removed, when not
// nil, after each removal. An entry that cannot be removed is kept and
// named in the error, and the others go on.
func Prune(dir string, keep int64, removed func(Entry)) (Pruned, error) {
	var all []Entry
	now := time.Now()
	for _, p := range Parts {
		es, err := Entries(dir, p.Dir, now)
		if err != nil {
			return Pruned{}, err
		}
		all = append(all, es...)
	}
	slices.SortStableFunc(all, func(a, b Entry) int { return a.Mod.Compare(b.Mod) })
	pr := Pruned{Entries: len(all)}
	for _, e := range all {
		pr.Total += e.Size
	}
	for _, e := range all {
		if pr.Total-pr.Freed <= keep {
			break
		}
		if err := removeEntry(e.Path); err != nil {
			pr.Failed = append(pr.Failed, err)
			continue
		}
		pr.Removed = append(pr.Removed, e)
		pr.Freed += e.Size
		if removed != nil {
			removed(e)
		}
	}
	if n := len(pr.Failed); n > 0 {
		return pr, fmt.Errorf("could not remove %d entries (is another perflab using them? check the permissions of %s):\n%w", n, dir, errors.Join(pr.Failed...))
	}
	return pr, nil
}

// removeEntry removes a cache entry. Extracted sources may hold read-only
// directories, which are made writable and the removal tried again.
func removeEntry(p string) error {
	err := os.RemoveAll(p)
	if err == nil {
		return nil
	}
	filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(q, 0o755)
		}
		return nil
	})
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("removing %s: %w", p, err)
	}
	return nil
}

// GoCacheDir is the Go build cache directory, as go env GOCACHE says.
func GoCacheDir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOCACHE").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("go env GOCACHE: %w (is the go command on PATH?)", err)
	}
	d := strings.TrimSpace(string(out))
	if d == "" || d == "off" {
		return "", fmt.Errorf("go env GOCACHE says %q: the Go build cache is off", d)
	}
	return d, nil
}

// CleanGo runs go clean -cache, which empties the Go build cache of every
// Go project on the machine, and returns the cache's directory and its
// size before and after.
func CleanGo(ctx context.Context) (dir string, before, after int64, err error) {
	if dir, err = GoCacheDir(ctx); err != nil {
		return "", 0, 0, err
	}
	if before, _, err = DirUsage(dir); err != nil {
		return dir, 0, 0, err
	}
	cmd := exec.CommandContext(ctx, "go", "clean", "-cache")
	if out, err := cmd.CombinedOutput(); err != nil {
		return dir, before, 0, fmt.Errorf("go clean -cache: %w\n%s", err, strings.TrimSpace(string(out)))
	}
	after, _, err = DirUsage(dir)
	return dir, before, after, err
}

// sizeUnits are the units ParseSize reads, lower-cased.
var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// ParseSize reads a size in bytes such as 500MB, 1.5GB, 2GiB or 0: kB,
// MB, GB, TB are powers of 1000, KiB, MiB, GiB, TiB of 1024.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits[unit]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || num == "" {
		return 0, fmt.Errorf("size %q: want a number of bytes with an optional unit, e.g. 500MB, 1.5GB or 2GiB (kB, MB, GB, TB are powers of 1000; KiB, MiB, GiB, TiB of 1024)", s)
	}
	b := f * mult
	if b > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(math.Round(b)), nil
}

// FormatSize writes n bytes in powers of 1000, as ParseSize reads them:
// "999 B", "1.5 MB".
func FormatSize(n int64) string {
	const units = "kMGTPE"
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n)/1000, 0
	for f >= 999.95 && i < len(units)-1 {
		f /= 1000
		i++
	}
	return fmt.Sprintf("%.1f %cB", f, units[i])
}
