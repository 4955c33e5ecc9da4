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
	usage:   "OLD NEW [--fail-on RULES] [--json]",
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

--fail-on makes compare a CI gate: it exits 1 when a change is a discovery
under the Benjamini-Hochberg procedure at --alpha (false discovery rate)
among all compared rows of the rule's unit, AND its whole confidence
interval lies beyond the rule's limit; so chance hits among hundreds of
benchmarks, noise and changes too small to matter do not fail a build.
Rules are comma-separated: "sec/op>+5%" fails on slow-downs of more than 5%,
"req/s<-5%" on throughput drops of more than 5%. A rule whose unit no
compared benchmark reports is an error (a typo would otherwise pass
silently), and so is a gate with no benchmark in both sides.
Without --fail-on, compare only reports and exits 0.

Examples:
  perflab compare 3 4
  perflab compare latest~1 latest --fail-on 'sec/op>+5%,B/op>+10%'
  perflab compare base.txt pr.txt --fail-on 'sec/op>+5%'
  perflab compare 3 4 --map default=go126 --map gogc-off=go126-gogc-off`,
}

type compareFlags struct {
	common
	failOn string
	asJSON bool
	maps   multiFlag
}

func (f *compareFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	f.alphaFlag(fs)
	fs.StringVar(&f.failOn, "fail-on", "", "gate `rules`, e.g. 'sec/op>+5%,B/op>+10%': exit 1 on a change that is a Benjamini-Hochberg discovery and wholly beyond a limit")
	fs.BoolVar(&f.asJSON, "json", false, "print the comparison (and gate failures) as JSON")
	fs.Var(&f.maps, "map", "pair config `OLD=NEW` (old side's name = new side's name); repeat for several")
}

func init() {
	define(cmdCompare, func(f *compareFlags, pos []string, stdout, stderr io.Writer) error {
		if len(pos) != 2 {
			return fmt.Errorf("want OLD and NEW (run IDs, \"latest\", \"latest~N\" or benchmark files), got %d arguments", len(pos))
		}
		var ths []compare.Threshold
		var err error
		if f.failOn != "" {
			if ths, err = compare.ParseThresholds(f.failOn); err != nil {
				return fmt.Errorf("--fail-on: %w", err)
			}
		}
		old, err := compareInput(f.common, pos[0], stderr)
		if err != nil {
			return err
		}
		new, err := compareInput(f.common, pos[1], stderr)
		if err != nil {
			return err
		}
		cmap, err := compare.ParseConfigMap(f.maps)
		if err != nil {
			return fmt.Errorf("--map: %w", err)
		}
		res := findings.Compare(old, new, findings.CompareOptions{Alpha: f.alpha, ConfigMap: cmap})
		for _, p := range res.FuncProblems {
			fmt.Fprintf(stderr, "perflab compare: per-function counts: %s\n", p)
		}
		fails, unmatched := compare.Check(res.Gate(), res.Alpha, ths)
		if f.asJSON {
			err = report.CompareJSON(stdout, res, fails)
		} else {
			err = report.CompareText(stdout, res, fails)
		}
		if err != nil {
			return err
		}
		if len(res.Rows) == 0 && len(ths) > 0 {
			return errors.New("no benchmark is in both OLD and NEW (same name and config), so the gate cannot judge anything; check that both measured the same benchmarks, and pair differently named configs with --map OLD=NEW")
		}
		return gateOutcome(stderr, "perflab compare", f.failOn, fails, unmatched)
	})
}

// compareInput reads one side: a stored run (its planned rounds) or a
// benchmark file.
func compareInput(c common, arg string, stderr io.Writer) (*findings.Set, error) {
	if arg != "-" {
		if _, err := os.Stat(arg); err != nil && isRunRef(arg) {
			db, err := openDB(c.db, true)
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

// gateOutcome reports a --fail-on gate's result on stderr: an error when a
// rule names a unit no compared benchmark reports, errExit1 with one line
// per failure when the gate failed, nil when it passed.
func gateOutcome(stderr io.Writer, cmd, failOn string, fails []compare.Failure, unmatched []compare.Threshold) error {
	if len(unmatched) > 0 {
		var names []string
		for _, u := range unmatched {
			names = append(names, u.String())
		}
		return fmt.Errorf("--fail-on: no compared benchmark reports the unit of %s; check the unit (units are as benchstat prints them, e.g. sec/op, B/op, allocs/op)", strings.Join(names, ", "))
	}
	if len(fails) == 0 {
		return nil
	}
	fmt.Fprintf(stderr, "%s: %d significant changes beyond --fail-on %s\n", cmd, len(fails), failOn)
	for _, fl := range fails {
		fmt.Fprintf(stderr, "  %s\n", report.FailureLine(fl))
	}
	return errExit1
}
