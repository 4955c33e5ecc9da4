package gotest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNoRandLayout says that a toolchain's linker has no -randlayout flag
// (it first appeared after go1.22), so its binaries can be linked with the
// default function layout only.
var ErrNoRandLayout = errors.New("the linker has no -randlayout flag")

// A Linker relinks one build's test binary with random function layouts.
//
// The linker's -randlayout=SEED shuffles the order of functions in the
// text segment, which moves their alignment relative to cache lines, the
// uop cache and branch predictors. Compiled packages come from the go
// command's build cache, so a new layout costs a link, not a build.
type Linker struct {
	b     Build
	flags []string // build flags before the package, without the layout
}

// NewLinker prepares relinking b (b.CPUTime builds are relinked with the
// same CPU timer). scratch is a directory for the CPU timer's overlay; it
// is created if missing.
func NewLinker(ctx context.Context, b Build, scratch string) (*Linker, error) {
	_, cpu, err := b.key(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return nil, fmt.Errorf("gotest: creating layout dir: %w", err)
	}
	flags, err := b.buildFlags(cpu, scratch)
	if err != nil {
		return nil, err
	}
	return &Linker{b: b, flags: flags}, nil
}

// Link writes b's test binary linked with -randlayout=seed to out. seed
// must not be 0 (which the linker reads as "no shuffling"). A toolchain
// whose linker lacks the flag gives an error wrapping [ErrNoRandLayout].
func (l *Linker) Link(ctx context.Context, seed int64, out string) error {
	if seed == 0 {
		return errors.New("gotest: layout seed 0 is the default layout; pick a non-zero seed")
	}
	tmp := out + ".tmp"
	args := append([]string{"test", "-c", "-o", tmp}, withLayout(l.flags, seed, goflagsLdflags(l.b.Env))...)
	args = append(args, l.b.pkg())
	if _, err := l.b.goOutput(ctx, args); err != nil {
		os.Remove(tmp)
		if strings.Contains(err.Error(), "flag provided but not defined: -randlayout") {
			return fmt.Errorf("gotest: linking %s in %s: %w", l.b.pkg(), l.b.dirName(), ErrNoRandLayout)
		}
		return fmt.Errorf("gotest: linking %s with layout %d in %s: %w", l.b.pkg(), seed, l.b.dirName(), err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("gotest: moving relinked binary: %w", err)
	}
	return nil
}

// withLayout returns flags with -randlayout=seed (and -w) added to the
// linker flags: appended to the last -ldflags given (in flags, or else in
// GOFLAGS, whose -ldflags a command-line one would replace), or as a new
// -ldflags.
func withLayout(flags []string, seed int64, goflags string) []string {
	// -w leaves out the DWARF tables, which no timed run reads and whose
	// writing is a fifth of a link.
	lay := "-w -randlayout=" + strconv.FormatInt(seed, 10)
	out := append([]string(nil), flags...)
	for i := len(out) - 1; i >= 0; i-- {
		f := out[i]
		if v, ok := strings.CutPrefix(strings.TrimLeft(f, "-"), "ldflags="); ok {
			out[i] = "-ldflags=" + strings.TrimSpace(v+" "+lay)
			return out
		}
		if (f == "-ldflags" || f == "--ldflags") && i+1 < len(out) {
			out[i+1] = strings.TrimSpace(out[i+1] + " " + lay)
			return out
		}
	}
	return append(out, "-ldflags="+strings.TrimSpace(goflags+" "+lay))
}

// goflagsLdflags is the value of -ldflags in the GOFLAGS that env (or else
// the process environment) sets, "" when none. GOFLAGS separates flags by
// spaces, so its -ldflags holds a single linker flag.
func goflagsLdflags(env []string) string {
	goflags := os.Getenv("GOFLAGS")
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GOFLAGS="); ok {
			goflags = v
		}
	}
	val := ""
	for _, f := range strings.Fields(goflags) {
		if v, ok := strings.CutPrefix(strings.TrimLeft(f, "-"), "ldflags="); ok {
			val = v
		}
	}
	return val
}

// LayoutPath is where a relinked binary of the build keyed key goes in dir.
func LayoutPath(dir, key string, seed int64) string {
	return filepath.Join(dir, fmt.Sprintf("%s-L%d.test", key, seed))
}
