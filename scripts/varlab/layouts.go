package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/driver/gotest"
)

// side is one source tree measured by layouts.
type side struct{ name, dir string }

// binary is one relinked test binary.
type binary struct {
	side  side
	align int
	seed  int64
	path  string
}

func runLayouts(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("varlab layouts", flag.ContinueOnError)
	var c common
	c.register(fs, "layouts", 15)
	nLayouts := fs.Int("layouts", 10, "random link layouts per alignment (and per source tree)")
	aligns := fs.String("funcalign", "0,64,128", "function alignments, comma-separated: each N links with -ldflags=-funcalign=N; 0 is the linker's default")
	firstSeed := fs.Int64("layoutseed", 1, "the first layout's -randlayout seed; layout i has seed layoutseed+i−1 at every alignment")
	planted := fs.String("planted", "", "two source trees of one module, `OLDDIR,NEWDIR`, measured side by side instead of -dir: the change new/old per alignment")
	instr := fs.Bool("instructions", true, "with -planted, also measure instructions/op under Cachegrind (valgrind)")
	err := c.parse(fs, args, "Usage: varlab layouts -dir MODDIR -bench REGEX [flags]\n\n"+
		"Links -layouts random layouts of the package's test binary at each -funcalign,\n"+
		"runs -rounds rounds of every binary once in a shuffled order, and prints per\n"+
		"benchmark and alignment the between-layout and the process SD of log time.\n\n")
	if err != nil {
		return err
	}
	if *nLayouts < 2 {
		return fmt.Errorf("-layouts %d: want at least 2", *nLayouts)
	}
	var alignList []int
	for _, s := range strings.Split(*aligns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return fmt.Errorf("-funcalign %q: want non-negative integers, e.g. 0,64,128", *aligns)
		}
		alignList = append(alignList, n)
	}
	sides := []side{{"base", c.dir}}
	if *planted != "" {
		c.dir = "" // not built: the settings line names the two trees
		oldDir, newDir, ok := strings.Cut(*planted, ",")
		if !ok || oldDir == "" || newDir == "" || strings.Contains(newDir, ",") {
			return fmt.Errorf("-planted %q: want OLDDIR,NEWDIR", *planted)
		}
		sides = []side{{"old", oldDir}, {"new", newDir}}
	}
	if *planted != "" && *instr {
		if _, err := cachegrind.Version(ctx); err != nil {
			return fmt.Errorf("%w (or run with -instructions=false)", err)
		}
	}

	tmp, cleanup, err := c.scratch("layouts")
	if err != nil {
		return err
	}
	defer cleanup()
	bins, err := link(ctx, sides, alignList, c.pkg, *nLayouts, *firstSeed, tmp)
	if err != nil {
		return err
	}
	first := bins[0]
	names, err := leaves(ctx, first.path, pkgDir(first.side.dir, c.pkg), c.bench)
	if err != nil {
		return err
	}
	iters := map[string]int{}
	for _, leaf := range names {
		if iters[leaf], err = size(ctx, first.path, pkgDir(first.side.dir, c.pkg), leaf, c.benchtime); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "varlab: %s: %d iterations a process\n", leaf, iters[leaf])
	}

	extra := fmt.Sprintf("layouts=%d funcalign=%s layoutseed=%d", *nLayouts, *aligns, *firstSeed)
	if *planted != "" {
		extra += " planted=" + *planted
	}
	d := &dataset{Settings: settings("layouts", c, extra)}
	out, err := newSink(c.out, d.Settings, 0)
	if err != nil {
		return err
	}
	defer out.close()
	type job struct {
		leaf string
		bin  binary
	}
	rng := rand.New(rand.NewPCG(c.seed, 7))
	start, done := time.Now(), 0
	for r := 1; r <= c.rounds && ctx.Err() == nil; r++ {
		var jobs []job
		for _, leaf := range names {
			for _, b := range bins {
				jobs = append(jobs, job{leaf, b})
			}
		}
		rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		for pos, j := range jobs {
			v, err := timeOf(ctx, gotest.Invocation{Binary: j.bin.path, Dir: pkgDir(j.bin.side.dir, c.pkg)}, j.leaf, iters[j.leaf])
			if ctx.Err() != nil {
				break
			}
			if err != nil {
				return fmt.Errorf("round %d, %s, funcalign %d, layout %d: %w", r, j.bin.side.name, j.bin.align, j.bin.seed, err)
			}
			row := layoutRow{Bench: j.leaf, Align: j.bin.align, Side: j.bin.side.name, Layout: j.bin.seed, Round: r, Pos: pos, Iters: iters[j.leaf], Value: v[0], Unit: unitTime}
			d.Layouts = append(d.Layouts, row)
			if err := out.write(row.record()); err != nil {
				return err
			}
		}
		if ctx.Err() == nil {
			done = r
			progress(r, c.rounds, start)
		}
	}
	if *planted != "" && *instr && ctx.Err() == nil {
		rows, err := instructions(ctx, bins, names, c.pkg, tmp)
		if err != nil {
			return err
		}
		for _, row := range rows {
			d.Layouts = append(d.Layouts, row)
			if err := out.write(row.record()); err != nil {
				return err
			}
		}
	}
	printLayouts(stdout, d)
	return interrupted(ctx, done, c.rounds, c.out)
}

// link relinks every side's test binary at every alignment with layouts
// seeds firstSeed, firstSeed+1, …: the same seeds at every alignment.
func link(ctx context.Context, sides []side, aligns []int, pkg string, layouts int, firstSeed int64, tmp string) ([]binary, error) {
	var bins []binary
	start := time.Now()
	for _, s := range sides {
		for _, a := range aligns {
			b := gotest.Build{Dir: s.dir, Package: pkg}
			if a > 0 {
				b.Flags = []string{"-ldflags=-funcalign=" + strconv.Itoa(a)}
			}
			l, err := gotest.NewLinker(ctx, b, filepath.Join(tmp, "scratch"))
			if err != nil {
				return nil, fmt.Errorf("preparing to link %s: %w", s.dir, err)
			}
			for i := range layouts {
				seed := firstSeed + int64(i)
				if seed == 0 {
					return nil, errors.New("-layoutseed: the seeds must not include 0, the linker's default layout")
				}
				path := filepath.Join(tmp, fmt.Sprintf("%s-a%d-L%d.test", s.name, a, seed))
				if err := l.Link(ctx, seed, path); err != nil {
					return nil, fmt.Errorf("funcalign %d: %w", a, err)
				}
				bins = append(bins, binary{s, a, seed, path})
			}
			fmt.Fprintf(os.Stderr, "varlab: linked %d binaries (%s)\n", len(bins), time.Since(start).Round(time.Second))
		}
	}
	return bins, nil
}

// instructions measures each benchmark's instructions/op under Cachegrind
// on every side's first layout at every alignment, all at one iteration
// count (and its double) calibrated on the first binary.
func instructions(ctx context.Context, bins []binary, names []string, pkg, tmp string) ([]layoutRow, error) {
	opt := cachegrind.Options{TempDir: tmp}
	// Valgrind on some machines announces RDTSCP and then faults on it;
	// the runtime reads time without it when told so.
	env := []string{"GODEBUG=cpu.rdtscp=off"}
	var rows []layoutRow
	for _, leaf := range names {
		re, err := leafRegex(leaf)
		if err != nil {
			return nil, err
		}
		cell := func(b binary) cachegrind.Cell {
			return cachegrind.Cell{Binary: b.path, Dir: pkgDir(b.side.dir, pkg), Bench: re, Env: env}
		}
		cal, err := cachegrind.Calibrate(ctx, cell(bins[0]), opt)
		if err != nil {
			return nil, fmt.Errorf("calibrating %s under Cachegrind: %w", leaf, err)
		}
		for _, b := range bins {
			if b.seed != bins[0].seed {
				continue
			}
			m, err := cachegrind.Measure(ctx, cell(b), opt, cal.N)
			if err != nil {
				return nil, fmt.Errorf("%s (%s, funcalign %d) under Cachegrind: %w", leaf, b.side.name, b.align, err)
			}
			rows = append(rows, layoutRow{Bench: leaf, Align: b.align, Side: b.side.name, Layout: b.seed, Iters: int(m.N), Value: m.Instructions(), Unit: unitInstr})
			fmt.Fprintf(os.Stderr, "varlab: %s, %s, funcalign %d: %.0f instructions/op\n", leaf, b.side.name, b.align, m.Instructions())
		}
	}
	return rows, nil
}
