package ab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/revision"
	"github.com/perflab/perflab/spec"
)

// listSides builds each side's test binaries of pkgs and lists their
// benchmarks matching regex; with several packages, each benchmark names
// its package. A side that does not build is named on progress; both
// are tried before giving up.
func listSides(ctx context.Context, sides []*Side, pkgs []string, regex, binCache string, progress io.Writer) ([2][]discover.Bench, error) {
	var out [2][]discover.Bench
	var failed []string
	multi := Several(pkgs)
	for i, sd := range sides {
		list, err := packagesOf(ctx, sd.Source, pkgs)
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			fmt.Fprintf(progress, "perflab ab: %s: %v\n", sd.Name, err)
			continue
		}
		built := true
		var without []string
		for _, pkg := range list {
			// where names the package in a line about several.
			where := ""
			if multi {
				where = pkg + ": "
			}
			l, err := List(ctx, sd.Source, sd.Config(), pkg, regex, binCache)
			if err == nil {
				for _, b := range l.Benches {
					if multi {
						b.Package = pkg
					}
					out[i] = append(out[i], b)
				}
				sd.Skipped = append(sd.Skipped, l.Skipped...)
				for _, line := range discover.SkipLines(l.Skipped) {
					fmt.Fprintf(progress, "perflab ab: %s: %s%s\n", sd.Name, where, line)
				}
			}
			var be *BuildError
			switch {
			case ctx.Err() != nil:
				return out, ctx.Err()
			case errors.As(err, &be) && multi:
				fmt.Fprintf(progress, "perflab ab: %s (%s): %s does not build:\n%s\n", sd.Name, sd.Label(), pkg, indentText(err.Error()))
				built = false
			case errors.As(err, &be):
				fmt.Fprintf(progress, "perflab ab: %s (%s) does not build:\n%s\n", sd.Name, sd.Label(), indentText(err.Error()))
				built = false
			case err != nil && multi && errors.As(err, new(*discover.NoMatchError)):
				// A package with no benchmark the selection matches,
				// among several: counted below, in one line.
				without = append(without, pkg)
			case err != nil:
				fmt.Fprintf(progress, "perflab ab: %s: %s%v\n", sd.Name, where, err)
			}
		}
		if len(without) > 0 {
			fmt.Fprintf(progress, "perflab ab: %s: %d of %d packages have no benchmark matching %q to run: %s\n", sd.Name, len(without), len(list), regex, strings.Join(without, ", "))
		}
		if !built {
			failed = append(failed, sd.Name)
		}
	}
	if len(failed) > 0 {
		return out, fmt.Errorf("%s does not build (see above); nothing was measured", strings.Join(failed, " and "))
	}
	return out, nil
}

// ListAll lists the benchmarks matching regex in the packages pkgs name
// in src, as [List] does for one: a pattern stands for the packages with
// test files that go list finds for it. With several packages each
// benchmark names its package, and a package with no benchmark the
// selection matches is passed over; a package whose test binary does not
// build is a *[BuildError] naming it.
func ListAll(ctx context.Context, src *revision.Source, c discover.Config, pkgs []string, regex, binCache string) (*discover.Listing, error) {
	if !Several(pkgs) {
		return List(ctx, src, c, pkgs[0], regex, binCache)
	}
	list, err := packagesOf(ctx, src, pkgs)
	if err != nil {
		return nil, err
	}
	var all discover.Listing
	for _, pkg := range list {
		l, err := List(ctx, src, c, pkg, regex, binCache)
		var be *BuildError
		var se *discover.SkippedError
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.As(err, &be):
			return nil, &BuildError{fmt.Errorf("%s: %w", pkg, be.Err)}
		case errors.As(err, &se):
			all.Skipped = append(all.Skipped, se.Skipped...)
			continue
		case errors.As(err, new(*discover.NoMatchError)):
			continue
		case err != nil:
			return nil, fmt.Errorf("%s: %w", pkg, err)
		}
		for _, b := range l.Benches {
			b.Package = pkg
			all.Benches = append(all.Benches, b)
		}
		all.Skipped = append(all.Skipped, l.Skipped...)
	}
	if len(all.Benches) == 0 {
		return nil, fmt.Errorf("none of the %d packages %s stands for has a benchmark matching %q", len(list), strings.Join(pkgs, " "), regex)
	}
	return &all, nil
}

// packagesOf are the packages pkgs name in src's module directory: pkgs
// as given, or, when they hold a pattern, the packages with test files
// that go list finds for them.
func packagesOf(ctx context.Context, src *revision.Source, pkgs []string) ([]string, error) {
	if !slices.ContainsFunc(pkgs, isPattern) {
		return pkgs, nil
	}
	found, err := discover.Packages(ctx, src.ModDir, pkgs)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range found {
		if p.HasTests {
			out = append(out, p.Path)
		}
	}
	return out, nil
}

func indentText(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// A BuildError is a source whose test binary does not build: Err holds
// the build's output.
type BuildError struct{ Err error }

func (e *BuildError) Error() string { return e.Err.Error() }
func (e *BuildError) Unwrap() error { return e.Err }

// List builds the test binary of package pkg (relative to src's module
// directory) with config c's settings, cached by content in binCache,
// and lists its benchmarks matching regex, with those that skipped
// themselves. A failed build is a *[BuildError].
func List(ctx context.Context, src *revision.Source, c discover.Config, pkg, regex, binCache string) (*discover.Listing, error) {
	s, err := spec.Parse(filepath.Join(src.ModDir, "perflab-ab.toml"), []byte(probeSpec(c)))
	if err != nil {
		return nil, err
	}
	sc := s.Configs[0]
	bin, _, err := gotest.Compile(ctx, gotest.Build{Dir: src.ModDir, Package: pkg, Env: sc.BuildEnv(), Flags: sc.BuildFlags(), CacheDir: binCache})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &BuildError{err}
	}
	return discover.Scan(ctx, bin, filepath.Join(src.ModDir, filepath.FromSlash(pkg)), regex)
}

// probeSpec is a one-config spec holding a config's settings, so its
// build flags and environment come from spec.Config like the run's.
func probeSpec(c discover.Config) string {
	text, err := discover.SpecText(discover.SpecInput{Name: "probe", Package: ".", Benches: []discover.Bench{{Func: "BenchmarkX"}}, Configs: []discover.Config{c}})
	if err != nil {
		return ""
	}
	return text
}

// Spec is the spec of a run whose configs are builds of different
// sources, with in's benchmarks; file places it (in the first source's
// module directory, which its package path is relative to).
func Spec(file string, in discover.SpecInput) (*spec.Spec, error) {
	text, err := discover.SpecText(in)
	if err != nil {
		return nil, err
	}
	s, err := spec.Parse(file, []byte(text))
	if err != nil {
		return nil, fmt.Errorf("the benchmarks do not make a valid spec: %w", err)
	}
	return s, nil
}

// Split returns the benchmarks on both sides (in old's order) and those
// on one side only, by full name (package and name).
func Split(old, new []discover.Bench) (both, onlyOld, onlyNew []discover.Bench) {
	inNew := map[string]bool{}
	for _, b := range new {
		inNew[b.FullName()] = true
	}
	inOld := map[string]bool{}
	for _, b := range old {
		inOld[b.FullName()] = true
		if inNew[b.FullName()] {
			both = append(both, b)
		} else {
			onlyOld = append(onlyOld, b)
		}
	}
	for _, b := range new {
		if !inOld[b.FullName()] {
			onlyNew = append(onlyNew, b)
		}
	}
	return both, onlyOld, onlyNew
}

// Name names an experiment after the directory of package pkg in the
// module at dir (the caller's, not its copy in the cache): lower-case
// letters, digits, '-' and '_'.
func Name(dir, pkg string) string {
	abs, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(pkg)))
	if err != nil {
		return "bench"
	}
	out := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '-'
	}, filepath.Base(abs))
	if out == "" || out == "." || out == "-" {
		return "bench"
	}
	return out
}
