package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
)

// checkFlags is the one check of the flags every command shares by name,
// run by parse once a command's flags are read, so each is refused with
// the same words whichever command takes it: the statistical flags
// (--alpha, --budget, --max-rounds, --rounds, --permutations, the gate's
// --fail-on; --precision and --min-effect check themselves as they are
// set) and the files a command writes (-o, --markdown, --html,
// --save-spec, --hdr-log, --bench-out, --access-log), which must not be the
// store.
func checkFlags(fs *flag.FlagSet) error {
	var errs []error
	fs.Visit(func(f *flag.Flag) {
		check, ok := flagChecks[f.Name]
		g, isGetter := f.Value.(flag.Getter)
		if ok && isGetter {
			if err := check(g.Get()); err != nil {
				errs = append(errs, err)
			}
		}
	})
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return checkOutputs(fs)
}

// flagChecks validates a flag's parsed value, by flag name.
var flagChecks = map[string]func(v any) error{
	"alpha": func(v any) error {
		a, ok := v.(float64)
		if ok && !(a > 0 && a < 1) { // NaN fails too
			return fmt.Errorf("--alpha %v: want a significance level between 0 and 1 (exclusive), such as 0.05", a)
		}
		return nil
	},
	"budget": func(v any) error {
		if d, ok := v.(time.Duration); ok && d < 0 {
			return fmt.Errorf("--budget %v: want a duration of 0 (no budget) or more, such as 5m", d)
		}
		return nil
	},
	"max-rounds":   atLeast("--max-rounds", 0, "0 (the default) or more"),
	"rounds":       atLeast("--rounds", 0, "1 or more"),
	"permutations": atLeast("--permutations", 1, "1 or more, such as 199"),
	"fail-on": func(v any) error {
		if s, ok := v.(string); ok && s != "" {
			if _, err := compare.ParseThresholds(s); err != nil {
				return fmt.Errorf("--fail-on: %w", err)
			}
		}
		return nil
	},
}

// atLeast checks an integer flag against its least value.
func atLeast(name string, least int, want string) func(v any) error {
	return func(v any) error {
		if n, ok := v.(int); ok && n < least {
			return fmt.Errorf("%s %d: want %s", name, n, want)
		}
		return nil
	}
}

// outputFlags are the flags that name a file perflab writes.
var outputFlags = []string{"o", "markdown", "html", "save-spec", "hdr-log", "bench-out", "access-log"}

// checkOutputs refuses an output file that is one of the store's files
// (the database, its -wal, -shm or -journal): the --db of the command, and
// perflab's default store.
func checkOutputs(fs *flag.FlagSet) error {
	var stores []string
	if f := fs.Lookup("db"); f != nil {
		stores = append(stores, f.Value.String())
	}
	if d := defaultDB(); d != "" {
		stores = append(stores, d)
	}
	for _, name := range outputFlags {
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		g, ok := f.Value.(flag.Getter)
		if !ok {
			continue
		}
		path, ok := g.Get().(string)
		if !ok || path == "" || path == "-" {
			continue
		}
		if err := checkOutput(flagName(name), path, stores); err != nil {
			return err
		}
	}
	return nil
}

func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// checkOutput refuses out when it resolves (through symlinks, or as a hard
// link) to a file of one of the stores.
func checkOutput(flagName, out string, stores []string) error {
	target := resolvePath(out)
	outInfo, outErr := os.Stat(out)
	for _, db := range stores {
		for _, f := range store.Files(db) {
			same := resolvePath(f) == target
			if !same && outErr == nil {
				if fi, err := os.Stat(f); err == nil {
					same = os.SameFile(fi, outInfo)
				}
			}
			if same {
				return fmt.Errorf("%s %s would overwrite %s, a file of the perflab store %s; write the output to another file", flagName, shownPath(out), shownPath(f), shownPath(db))
			}
		}
	}
	return nil
}

// resolvePath is p made absolute with every symbolic link resolved, also
// when p, or the file a link names, does not exist yet (its directory is
// resolved instead).
func resolvePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	for range 40 { // as many links as the kernel follows
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			return r
		}
		dir, base := filepath.Split(abs)
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			dir = r
		}
		abs = filepath.Join(dir, base)
		link, err := os.Readlink(abs)
		if err != nil {
			return abs // a file still to be made
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(dir, link)
		}
		abs = filepath.Clean(link) // a link to a file still to be made
	}
	return abs
}

// checkConfigMap refuses a --map pairing that names a config one side does
// not have.
func checkConfigMap(m map[string]string, old, new *findings.Set) error {
	var missing []string
	for _, side := range []struct {
		name string
		set  *findings.Set
		want func(o, n string) string
	}{
		{"OLD", old, func(o, _ string) string { return o }},
		{"NEW", new, func(_, n string) string { return n }},
	} {
		have := side.set.Configs()
		var lack []string
		for o, n := range m {
			if c := side.want(o, n); !slices.Contains(have, c) && !slices.Contains(lack, c) {
				lack = append(lack, c)
			}
		}
		if len(lack) > 0 {
			slices.Sort(lack)
			missing = append(missing, fmt.Sprintf("%s has no config %s (its configs: %s)", side.name, strings.Join(quoteAll(lack), ", "), listOrNone(have)))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("--map: %s", strings.Join(missing, "; "))
	}
	return nil
}

// checkKeys refuses an --axis or --by key that no benchmark name has.
func checkKeys(a *findings.Analysis, flags ...[2]string) error {
	for _, f := range flags {
		if f[1] != "" && !slices.Contains(a.Keys, f[1]) {
			return fmt.Errorf("%s %q: no benchmark name has a /%s=… level (the keys are: %s)", f[0], f[1], f[1], listOrNone(a.Keys))
		}
	}
	return nil
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Quote(v)
	}
	return out
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
