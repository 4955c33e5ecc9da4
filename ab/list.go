package ab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/revision"
	"github.com/perflab/perflab/spec"
)

// listSides builds each side's test binary of pkg and lists its
// benchmarks matching regex. A side that does not build is named on
// progress; both are tried before giving up.
func listSides(ctx context.Context, sides []*Side, pkg, regex, binCache string, progress io.Writer) ([2][]discover.Bench, error) {
	var out [2][]discover.Bench
	var failed []string
	for i, sd := range sides {
		l, err := List(ctx, sd.Source, sd.Config(), pkg, regex, binCache)
		if err == nil {
			out[i], sd.Skipped = l.Benches, l.Skipped
			for _, line := range discover.SkipLines(l.Skipped) {
				fmt.Fprintf(progress, "perflab ab: %s: %s\n", sd.Name, line)
			}
		}
		var be *BuildError
		switch {
		case ctx.Err() != nil:
			return out, ctx.Err()
		case errors.As(err, &be):
			fmt.Fprintf(progress, "perflab ab: %s (%s) does not build:\n%s\n", sd.Name, sd.Label(), indentText(err.Error()))
			failed = append(failed, sd.Name)
		case err != nil:
			fmt.Fprintf(progress, "perflab ab: %s: %v\n", sd.Name, err)
		}
	}
	if len(failed) > 0 {
		return out, fmt.Errorf("%s does not build (see above); nothing was measured", strings.Join(failed, " and "))
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
// on one side only.
func Split(old, new []discover.Bench) (both, onlyOld, onlyNew []discover.Bench) {
	inNew := map[string]bool{}
	for _, b := range new {
		inNew[b.Name()] = true
	}
	inOld := map[string]bool{}
	for _, b := range old {
		inOld[b.Name()] = true
		if inNew[b.Name()] {
			both = append(both, b)
		} else {
			onlyOld = append(onlyOld, b)
		}
	}
	for _, b := range new {
		if !inOld[b.Name()] {
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
