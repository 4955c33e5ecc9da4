package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/perflab/perflab/engine"
)

// seqFlags are the sequential-sampling flags of run and bench.
type seqFlags struct {
	precision precisionFlag
	maxRounds int
	unit      string
	layout    string // "" leaves the command's default (see layoutDefault)
}

func (f *seqFlags) declare(fs *flag.FlagSet) {
	f.layoutFlag(fs)
	fs.Var(&f.precision, "precision", "sample sequentially until every compared ratio's anytime-valid interval is no wider than ±`P` (e.g. 1% or 0.01), or the budget ends")
	fs.IntVar(&f.maxRounds, "max-rounds", 0, "sample sequentially, at most `N` rounds in all (default 500 when sampling sequentially without --budget; with one, the budget bounds them)")
	fs.StringVar(&f.unit, "unit", "", "`unit` compared ratios are decided on when sampling sequentially: sec/op (the default: wall time; each process times 5 repetitions and keeps their median) or cpu-sec/op (the CPU time of the timed loop per op, read inside the benchmark process by a patched testing package, from processes of about 0.1 s of it; excludes start-up and time the process was not running, includes GC work and every goroutine's CPU on every thread; the unit that decides on a machine shared with other jobs) or instructions/op (the default with --measure instructions)")
}

// layoutFlag declares --layout.
func (f *seqFlags) layoutFlag(fs *flag.FlagSet) {
	fs.StringVar(&f.layout, "layout", "", "link `layout` of the timed builds: random (relink each build with a fresh -ldflags=-randlayout every few rounds, so a comparison of builds holds over layouts; the default of ab and bisect) or fixed (one link per build: verdicts hold for these binaries only; the default of run and bench)")
}

// layoutDefault sets --layout to def when it was not given.
func (f *seqFlags) layoutDefault(def string) {
	if f.layout == "" {
		f.layout = def
	}
}

// check validates the flags.
func (f *seqFlags) check() error {
	if _, err := engine.ParseLayout(f.layout); err != nil {
		return fmt.Errorf("--%w", err)
	}
	switch f.unit {
	case "", engine.UnitSec, engine.UnitCPU, engine.UnitInstructions:
		return nil
	}
	return fmt.Errorf("--unit %q: want %s, %s or %s (with --measure instructions)", f.unit, engine.UnitSec, engine.UnitCPU, engine.UnitInstructions)
}

// precisionFlag is a relative half-width: "1%" or "0.01".
type precisionFlag float64

func (p *precisionFlag) String() string {
	if *p == 0 {
		return ""
	}
	return strconv.FormatFloat(100*float64(*p), 'g', -1, 64) + "%"
}

func (p *precisionFlag) Set(s string) error {
	v, err := parsePrecision(s)
	if err != nil {
		return err
	}
	*p = precisionFlag(v)
	return nil
}

// parsePrecision reads "1%", "0.5%" or "0.01" as a fraction in (0, 1).
func parsePrecision(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if v, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = strings.TrimSpace(v), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v*scale > 0 && v*scale < 1) {
		return 0, fmt.Errorf("--precision %q: want a half-width such as 1%% or 0.01 (between 0 and 100%%)", s)
	}
	return v * scale, nil
}
