package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/perflab/perflab/builtin"
)

var cmdCache = &command{
	rank:    65,
	name:    "cache",
	summary: "sizes of perflab's test-binary cache and the Go build cache; prune, clean",
	usage:   "[prune [--keep SIZE] | clean] [--go] [--cache DIR]",
	help: `
Cache shows how much disk perflab's cache and the Go build cache take, and
where they are: the compiled test binaries (bin/) and the exported sources
of built-in experiments and of revisions that ab and bisect measured
(src/) in perflab's cache directory ($PERFLAB_CACHE, or perflab in the
user cache directory; --cache), the Go build cache (go env GOCACHE), which
every go test -c perflab runs fills, and, for reference, the stored runs
in perflab's data directory (see "perflab help storage"), which are kept.

  perflab cache prune [--keep SIZE]   removes the oldest entries (by when
                                      they were built) until what is left
                                      fits in SIZE (default 1GB)
  perflab cache clean                 removes every entry

perflab builds again whatever it needs next, so pruning loses nothing but
time. Do not prune while a run is in flight: its test binaries would go
from under it. --go also runs "go clean -cache", which empties the Go
build cache of every Go project on the machine, so it is never done
unless asked. SIZE is a number of bytes with an optional unit: kB, MB,
GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024).

Examples:
  perflab cache
  perflab cache prune --keep 500MB
  perflab cache clean --go          # also empty the Go build cache`,
}

// defaultKeep is "perflab cache prune"'s default --keep.
const defaultKeep = 1_000_000_000

type cacheFlags struct {
	cache   string
	keep    sizeFlag
	goCache bool
	verbose bool
}

func (f *cacheFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.cache, "cache", "", "perflab's cache `dir` (default $PERFLAB_CACHE or perflab in the user cache dir)")
	f.keep = sizeFlag{n: defaultKeep}
	fs.Var(&f.keep, "keep", "with prune: keep at most `SIZE` of perflab's cache, the newest entries (e.g. 500MB, 2GiB, 0)")
	fs.BoolVar(&f.goCache, "go", false, "with prune or clean: also run \"go clean -cache\" (empties the Go build cache of every project)")
	fs.BoolVar(&f.verbose, "v", false, "name every entry removed")
}

func init() {
	define(cmdCache, func(f *cacheFlags, pos []string, stdout, stderr io.Writer) error {
		sub := ""
		if len(pos) > 0 {
			sub = pos[0]
		}
		switch {
		case len(pos) > 1:
			return usageError(fmt.Errorf("want at most one of prune or clean, got %q", pos))
		case sub != "" && sub != "prune" && sub != "clean":
			return usageError(fmt.Errorf("unknown action %q: want prune or clean (or nothing, to show the sizes)", sub))
		case f.keep.set && sub != "prune":
			return usageError(errors.New("--keep goes with prune: perflab cache prune --keep SIZE"))
		case f.goCache && sub == "":
			return usageError(errors.New("--go goes with prune or clean: perflab cache clean --go"))
		}
		if f.cache == "" {
			var err error
			if f.cache, err = builtin.CacheDir(); err != nil {
				return err
			}
		}
		dir := shownPath(f.cache)
		ctx, stop := interruptible()
		defer stop()
		switch sub {
		case "":
			return showCache(ctx, stdout, dir)
		case "prune":
			if err := pruneCache(stdout, dir, f.keep.n, f.verbose); err != nil {
				return err
			}
		case "clean":
			if err := pruneCache(stdout, dir, 0, f.verbose); err != nil {
				return err
			}
		}
		if f.goCache {
			return cleanGoCache(ctx, stdout)
		}
		return nil
	})
}

// cacheParts are the directories of perflab's cache that "perflab cache"
// shows and prunes, with what they hold.
var cacheParts = []struct{ dir, what string }{
	{"bin", "test binaries"},
	{"src", "exported sources"},
}

// cacheEntry is one thing perflab's cache holds: a test binary, or a tree
// of exported sources. Entries are pruned whole, oldest first.
type cacheEntry struct {
	path string
	size int64
	mod  time.Time
}

// inFlight is how long a temporary entry (a name starting with ".") is
// taken to belong to a build still going on; older ones are leftovers of
// a killed perflab and are pruned like any other entry.
const inFlight = time.Hour

// cacheEntries lists the entries under dir/part: each top-level file or
// directory, with its size in bytes. A missing directory has none.
func cacheEntries(dir, part string, now time.Time) ([]cacheEntry, error) {
	root := filepath.Join(dir, part)
	des, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading perflab's cache: %w", err)
	}
	var out []cacheEntry
	for _, de := range des {
		info, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if strings.HasPrefix(de.Name(), ".") && now.Sub(info.ModTime()) < inFlight {
			continue
		}
		e := cacheEntry{path: filepath.Join(root, de.Name()), mod: info.ModTime(), size: info.Size()}
		if de.IsDir() {
			if e.size, _, err = dirUsage(e.path); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// dirUsage is the total size in bytes of the regular files under dir, and
// how many there are. A missing dir is empty; files removed during the
// walk are skipped.
func dirUsage(dir string) (size int64, files int, err error) {
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

// showCache prints the sizes of perflab's cache, the Go build cache and
// perflab's stored runs.
func showCache(ctx context.Context, w io.Writer, dir string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WHAT\tSIZE\tENTRIES\tWHERE")
	var total int64
	now := time.Now()
	for _, p := range cacheParts {
		es, err := cacheEntries(dir, p.dir, now)
		if err != nil {
			return err
		}
		var size int64
		for _, e := range es {
			size += e.size
		}
		total += size
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", p.what, formatSize(size), len(es), filepath.Join(dir, p.dir))
	}
	gocache, gerr := goCacheDir(ctx)
	if gerr == nil {
		size, files, err := dirUsage(gocache)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "Go build cache\t%s\t%d\t%s\n", formatSize(size), files, gocache)
	}
	if h, err := findHome(); err == nil {
		if size, files, err := dirUsage(h.Dir); err == nil && files > 0 && !h.Legacy {
			fmt.Fprintf(tw, "stored runs (kept)\t%s\t%d\t%s\n", formatSize(size), files, h.Dir)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if gerr != nil {
		fmt.Fprintf(w, "Go build cache: unknown (%v)\n", gerr)
	}
	fmt.Fprintf(w, "\nperflab's cache holds %s in %s.\n", formatSize(total), dir)
	fmt.Fprintf(w, "Free it with \"perflab cache prune --keep 500MB\" (oldest first) or \"perflab cache clean\"; add --go to also run go clean -cache.\n")
	return nil
}

// pruneCache removes perflab's cache entries, oldest first, until at most
// keep bytes are left.
func pruneCache(w io.Writer, dir string, keep int64, verbose bool) error {
	var all []cacheEntry
	now := time.Now()
	for _, p := range cacheParts {
		es, err := cacheEntries(dir, p.dir, now)
		if err != nil {
			return err
		}
		all = append(all, es...)
	}
	slices.SortStableFunc(all, func(a, b cacheEntry) int { return a.mod.Compare(b.mod) })
	var total int64
	for _, e := range all {
		total += e.size
	}
	var removed, freed int64
	var failed []string
	for _, e := range all {
		if total-freed <= keep {
			break
		}
		if err := removeEntry(e.path); err != nil {
			failed = append(failed, err.Error())
			continue
		}
		removed++
		freed += e.size
		if verbose {
			fmt.Fprintf(w, "removed %s (%s, %s)\n", e.path, formatSize(e.size), e.mod.Local().Format("2006-01-02 15:04"))
		}
	}
	what := "removed every entry"
	if keep > 0 {
		what = fmt.Sprintf("kept at most %s (--keep), the newest", formatSize(keep))
	}
	fmt.Fprintf(w, "perflab cache: removed %d of %d entries (%s) from %s; %s left (%s)\n",
		removed, len(all), formatSize(freed), dir, formatSize(total-freed), what)
	if len(failed) > 0 {
		return fmt.Errorf("could not remove %d entries (is another perflab using them? check the permissions of %s):\n  %s", len(failed), dir, strings.Join(failed, "\n  "))
	}
	return nil
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

// goCacheDir is the Go build cache directory, as go env GOCACHE says.
func goCacheDir(ctx context.Context) (string, error) {
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

// cleanGoCache runs go clean -cache and says how much it freed.
func cleanGoCache(ctx context.Context, w io.Writer) error {
	dir, err := goCacheDir(ctx)
	if err != nil {
		return err
	}
	before, _, err := dirUsage(dir)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "clean", "-cache")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go clean -cache: %w\n%s", err, strings.TrimSpace(string(out)))
	}
	after, _, err := dirUsage(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "go clean -cache: the Go build cache %s went from %s to %s\n", dir, formatSize(before), formatSize(after))
	return nil
}

// sizeFlag is a flag.Value holding a size in bytes.
type sizeFlag struct {
	n   int64
	set bool
}

func (s *sizeFlag) String() string {
	if s == nil {
		return ""
	}
	return formatSize(s.n)
}

func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	s.n, s.set = n, true
	return nil
}

// sizeUnits are the units parseSize reads, lower-cased.
var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// parseSize reads a size such as 500MB, 1.5GB, 2GiB or 0.
func parseSize(s string) (int64, error) {
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

// formatSize writes n bytes in powers of 1000, as parseSize reads them.
func formatSize(n int64) string {
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
