package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/perflab/perflab/builtin"
	"github.com/perflab/perflab/cache"
	"github.com/perflab/perflab/store"
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

type cacheFlags struct {
	cache   string
	keep    sizeFlag
	goCache bool
	verbose bool
}

func (f *cacheFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.cache, "cache", "", "perflab's cache `dir` (default $PERFLAB_CACHE or perflab in the user cache dir)")
	f.keep = sizeFlag{n: cache.DefaultKeep}
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

// showCache prints the sizes of perflab's cache, the Go build cache and
// perflab's stored runs.
func showCache(ctx context.Context, w io.Writer, dir string) error {
	parts, err := cache.Sizes(dir)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WHAT\tSIZE\tENTRIES\tWHERE")
	var total int64
	for _, u := range parts {
		total += u.Size
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", u.What, cache.FormatSize(u.Size), u.Entries, u.Path)
	}
	gocache, gerr := cache.GoCacheDir(ctx)
	if gerr == nil {
		size, files, err := cache.DirUsage(gocache)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "Go build cache\t%s\t%d\t%s\n", cache.FormatSize(size), files, gocache)
	}
	if h, err := store.FindHome(); err == nil {
		if size, files, err := cache.DirUsage(h.Dir); err == nil && files > 0 && !h.Legacy {
			fmt.Fprintf(tw, "stored runs (kept)\t%s\t%d\t%s\n", cache.FormatSize(size), files, h.Dir)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if gerr != nil {
		fmt.Fprintf(w, "Go build cache: unknown (%v)\n", gerr)
	}
	fmt.Fprintf(w, "\nperflab's cache holds %s in %s.\n", cache.FormatSize(total), dir)
	fmt.Fprintf(w, "Free it with \"perflab cache prune --keep 500MB\" (oldest first) or \"perflab cache clean\"; add --go to also run go clean -cache.\n")
	return nil
}

// pruneCache prunes perflab's cache to keep bytes and says what it removed.
func pruneCache(w io.Writer, dir string, keep int64, verbose bool) error {
	pr, err := cache.Prune(dir, keep, func(e cache.Entry) {
		if verbose {
			fmt.Fprintf(w, "removed %s (%s, %s)\n", e.Path, cache.FormatSize(e.Size), e.Mod.Local().Format("2006-01-02 15:04"))
		}
	})
	if pr.Entries == 0 && err != nil {
		return err
	}
	what := "removed every entry"
	if keep > 0 {
		what = fmt.Sprintf("kept at most %s (--keep), the newest", cache.FormatSize(keep))
	}
	fmt.Fprintf(w, "perflab cache: removed %d of %d entries (%s) from %s; %s left (%s)\n",
		len(pr.Removed), pr.Entries, cache.FormatSize(pr.Freed), dir, cache.FormatSize(pr.Total-pr.Freed), what)
	return err
}

// cleanGoCache runs go clean -cache and says how much it freed.
func cleanGoCache(ctx context.Context, w io.Writer) error {
	dir, before, after, err := cache.CleanGo(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "go clean -cache: the Go build cache %s went from %s to %s\n", dir, cache.FormatSize(before), cache.FormatSize(after))
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
	return cache.FormatSize(s.n)
}

func (s *sizeFlag) Set(v string) error {
	n, err := cache.ParseSize(v)
	if err != nil {
		return err
	}
	s.n, s.set = n, true
	return nil
}
