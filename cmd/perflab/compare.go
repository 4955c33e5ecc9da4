package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
)

var cmdCompare = &command{
	rank:    45,
	name:    "compare",
	summary: "compare two runs or benchmark files; a CI gate with --fail-on",
	usage:   "OLD NEW [--fail-on RULES [--require-decision]] [--json]",
	help: `
Compare prints, for every benchmark and unit present in both OLD and NEW,
the medians with their confidence intervals, the change Δ (median ratio − 1)
with a distribution-free confidence interval, and the Mann-Whitney U
p-value; then the geomean change per unit over the benchmarks common to
both (benchmarks in one side only are listed, never averaged in).

OLD and NEW are stored runs (an ID, "latest", or "latest~N" for the run N
before the latest) or files of Go benchmark output ("-" is stdin).

Benchmarks are paired by name and config. When each side has exactly one
config under different names (a run's "default" against another's
"go126"), those two are paired; otherwise --map OLD=NEW pairs them
(repeatable). What only one side has is summarised in a short table.

--fail-on makes compare a CI gate: rules are comma-separated, such as
"sec/op>+5%" (fails on slow-downs of more than 5%) or "req/s<-5%"
(throughput drops of more than 5%). A rule whose unit no compared
benchmark reports is an error (a typo would otherwise pass silently), and
so is a gate with no benchmark in both sides. Without --fail-on, compare
only reports and exits 0.

` + gateHelp + `

Examples:
  perflab compare 3 4
  perflab compare latest~1 latest --fail-on 'sec/op>+5%,B/op>+10%'
  perflab compare base.txt pr.txt --fail-on 'sec/op>+5%'
  perflab compare base.txt pr.txt --fail-on 'sec/op>+5%' --require-decision   # exit 3 when a row is undecided
  perflab compare 3 4 --map default=go126 --map gogc-off=go126-gogc-off`,
}

// gateHelp says how a --fail-on gate rules on rows and how it exits:
// the help of every command with a gate quotes it.
const gateHelp = `The gate rules on every compared row of a rule's unit:
  beyond     the change is a discovery under the Benjamini-Hochberg
             procedure at --alpha (false discovery rate) among all rows of
             the rule's unit, AND its whole confidence interval lies beyond
             the limit: the row is marked FAIL. So chance hits among
             hundreds of benchmarks, noise and changes too small to matter
             do not fail a build.
  within     the whole interval lies on the allowed side of the limit (or
             every value is the same on both sides): the row reads as it
             would without a gate.
  undecided  anything the gate cannot rule on yet: the interval still
             holds the limit (touching it counts), there is no interval
             (too few samples), or the interval lies beyond the limit but
             the change is no discovery. The row reads "undecided: a change
             below ±X% cannot be told apart on this machine", where X is
             half the width of the row's interval on the log scale,
             (log(1+hi) − log(1+lo))/2: the precision the samples reached
             (±7.8% for an interval of [−7.5%, +8.2%]). The lines after the
             table give each undecided row's estimate, interval and its
             distance from the limit on the same scale: the interval must
             shrink to about that half-width before the gate can rule.

Exit codes:
  0  done; with --fail-on, no row lies beyond a limit, and every gated
     row was decided (without --require-decision, undecided rows are
     listed on stderr but do not change the code)
  1  a row lies beyond a limit, or the command failed
  2  a usage error: bad flags or arguments, or a rule whose unit no
     compared benchmark reports
  3  with --require-decision: a gated row is undecided, none beyond a
     limit`

// gateFlags are a gate's flags: its rules and whether a row it cannot
// decide fails it.
type gateFlags struct {
	failOn          string
	requireDecision bool
}

func (g *gateFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&g.failOn, "fail-on", "", "gate `rules`, e.g. 'sec/op>+5%,B/op>+10%': exit 1 on a change that is a Benjamini-Hochberg discovery wholly beyond a limit; rows whose interval still holds a limit are printed as undecided")
	fs.BoolVar(&g.requireDecision, "require-decision", false, "with --fail-on: exit 3 when a gated row is undecided (its interval holds a limit, or there is none), after printing everything")
}

// rules parses --fail-on; a bad rule, or --require-decision without
// rules, is a usage error.
func (g *gateFlags) rules() ([]compare.Threshold, error) {
	if g.failOn == "" {
		if g.requireDecision {
			return nil, usageError(errors.New("--require-decision goes with --fail-on RULES"))
		}
		return nil, nil
	}
	ths, err := compare.ParseThresholds(g.failOn)
	if err != nil {
		return nil, usageError(fmt.Errorf("--fail-on: %w", err))
	}
	return ths, nil
}

type compareFlags struct {
	common
	gateFlags
	asJSON bool
	maps   multiFlag
}

func (f *compareFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	f.alphaFlag(fs, alphaCompare)
	f.gateFlags.declare(fs)
	fs.BoolVar(&f.asJSON, "json", false, "print the comparison and the gate's rulings (failures, undecided rows) as JSON")
	fs.Var(&f.maps, "map", "pair config `OLD=NEW` (old side's name = new side's name); repeat for several")
}

func init() {
	define(cmdCompare, func(f *compareFlags, pos []string, stdout, stderr io.Writer) error {
		if len(pos) != 2 {
			return usageError(fmt.Errorf("want OLD and NEW (run IDs, \"latest\", \"latest~N\" or benchmark files), got %d arguments", len(pos)))
		}
		ths, err := f.rules()
		if err != nil {
			return err
		}
		cmap, err := compare.ParseConfigMap(f.maps)
		if err != nil {
			return usageError(fmt.Errorf("--map: %w", err))
		}
		old, err := compareInput(f.common, pos[0], stderr)
		if err != nil {
			return err
		}
		new, err := compareInput(f.common, pos[1], stderr)
		if err != nil {
			return err
		}
		if err := checkConfigMap(cmap, old, new); err != nil {
			return usageError(err)
		}
		res := findings.Compare(old, new, findings.CompareOptions{Alpha: f.alpha, ConfigMap: cmap})
		for _, p := range res.FuncProblems {
			fmt.Fprintf(stderr, "perflab compare: per-function counts: %s\n", p)
		}
		var gate *compare.Gate
		if len(ths) > 0 {
			g := compare.Check(res.Gate(), res.Alpha, ths)
			gate = &g
		}
		if f.asJSON {
			err = report.CompareJSON(stdout, res, gate)
		} else {
			err = report.CompareText(stdout, res, gate)
		}
		if err != nil {
			return err
		}
		if len(res.Rows) == 0 && len(ths) > 0 {
			return errors.New("no benchmark is in both OLD and NEW (same name and config), so the gate cannot judge anything; check that both measured the same benchmarks, and pair differently named configs with --map OLD=NEW")
		}
		return f.outcome(stderr, "perflab compare", gate, "more samples on each side (go test -count) narrow the intervals")
	})
}

// compareInput reads one side: a stored run (its planned rounds) or a
// benchmark file.
func compareInput(c common, arg string, stderr io.Writer) (*findings.Set, error) {
	if arg != "-" {
		if _, err := os.Stat(arg); err != nil && isRunRef(arg) {
			db, err := openReadDB(c.db)
			if err != nil {
				return nil, err
			}
			defer db.Close()
			ctx := context.Background()
			id, err := runID(ctx, db, arg)
			if err != nil {
				return nil, err
			}
			return findings.ReadSet(ctx, db, id)
		}
	}
	return readSetFile(arg, "perflab compare", stderr)
}

// readSetFile reads a file of Go benchmark output ("-" is stdin); lines
// that do not parse are reported on stderr.
func readSetFile(arg, cmd string, stderr io.Writer) (*findings.Set, error) {
	var r io.Reader = os.Stdin
	name := "stdin"
	if arg != "-" {
		f, err := os.Open(arg)
		if err != nil {
			return nil, fmt.Errorf("%s is neither a run (an ID, \"latest\" or \"latest~N\") nor a readable file: %w", arg, err)
		}
		defer f.Close()
		r, name = f, arg
	}
	s, warn, err := findings.ParseSet(r, name)
	if warn != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, warn)
	}
	return s, err
}

// outcome reports a gate's result on stderr (nil gate: none; the lines
// are report.GateText's) and returns the error that sets the exit code: a
// usage error when a rule names a unit no compared benchmark reports;
// errExit1 when a row lies beyond a limit; errUndecided when a row is
// undecided under --require-decision; nil when the gate passed or left
// rows undecided without it. hint says how to narrow the intervals.
func (g *gateFlags) outcome(stderr io.Writer, cmd string, gate *compare.Gate, hint string) error {
	if gate == nil {
		return nil
	}
	if len(gate.Unmatched) > 0 {
		var names []string
		for _, u := range gate.Unmatched {
			names = append(names, u.String())
		}
		return usageError(fmt.Errorf("--fail-on: no compared benchmark reports the unit of %s; check the unit (units are as benchstat prints them, e.g. sec/op, B/op, allocs/op)", strings.Join(names, ", ")))
	}
	if err := report.GateText(stderr, gate, report.GateRun{Command: cmd, FailOn: g.failOn, RequireDecision: g.requireDecision, Hint: hint}); err != nil {
		return err
	}
	fails, undecided := gate.Fails(), gate.Undecided()
	switch {
	case len(fails) > 0:
		return errExit1
	case len(undecided) > 0 && g.requireDecision:
		return errUndecided
	}
	return nil
}
