package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
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
		res := compare.Compare(old.results, new.results, compare.Options{Alpha: f.alpha, ConfigMap: cmap, HigherIsBetter: compare.Directions(append(old.meta, new.meta...))})
		res.Sort()
		fails, unmatched := res.Check(ths)
		if f.asJSON {
			out := struct {
				*compare.Result
				Fails []compare.Failure `json:"fails"`
			}{res, fails}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(out); err != nil {
				return err
			}
		} else {
			describeSides(stdout, old, new)
			if err := res.WriteText(stdout, fails); err != nil {
				return err
			}
			if err := writeFuncChanges(stdout, old, new); err != nil {
				fmt.Fprintf(stderr, "perflab compare: per-function counts: %v\n", err)
			}
		}
		if len(res.Rows) == 0 && len(ths) > 0 {
			return errors.New("no benchmark is in both OLD and NEW (same name and config), so the gate cannot judge anything; check that both measured the same benchmarks, and pair differently named configs with --map OLD=NEW")
		}
		return gateOutcome(stderr, "perflab compare", f.failOn, fails, unmatched)
	})
}

func configSuffix(c string) string {
	if c == "" {
		return ""
	}
	return " @" + c
}

// side is one input of a comparison.
type side struct {
	label     string
	results   []*benchfmt.Result
	env       []store.KV // nil for a file
	meta      []benchfmt.UnitMetadata
	artifacts []store.Artifact // nil for a file
}

// compareInput reads one side: a stored run or a benchmark file.
func compareInput(c common, arg string, stderr io.Writer) (*side, error) {
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
			run, err := db.GetRun(ctx, id)
			if err != nil {
				return nil, err
			}
			sd := &side{label: fmt.Sprintf("run %d (%s, %s, %s)", id, run.Experiment, run.Mode, run.StartedAt.Local().Format("2006-01-02 15:04"))}
			if sd.results, err = db.Results(ctx, id); err != nil {
				return nil, err
			}
			sd.results = findings.SamplingOf(run).Planned(sd.results)
			if sd.env, err = db.Env(ctx, id); err != nil {
				return nil, err
			}
			meta, err := db.UnitMeta(ctx, id)
			if err != nil {
				return nil, err
			}
			sd.meta = storedMeta(meta)
			if sd.artifacts, err = db.Artifacts(ctx, id); err != nil {
				return nil, err
			}
			return sd, nil
		}
	}
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
	res, meta, err := readBench(r, name)
	if err != nil {
		fmt.Fprintf(stderr, "perflab compare: %v\n", err)
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("%s holds no benchmark results", name)
	}
	return &side{label: name, results: res, meta: meta}, nil
}

// describeSides names both inputs and, for stored runs, lists where their
// environments differ, warning when the calibration loop ran at a
// different speed: then part of every difference is the machine's.
func describeSides(w io.Writer, old, new *side) {
	fmt.Fprintf(w, "old: %s\nnew: %s\n", old.label, new.label)
	if old.env == nil || new.env == nil {
		fmt.Fprintln(w)
		return
	}
	ov := map[string]string{}
	for _, kv := range old.env {
		ov[kv.Key] = kv.Value
	}
	var diffs []string
	for _, kv := range new.env {
		if o, ok := ov[kv.Key]; ok && o != kv.Value && kv.Key != "time" {
			diffs = append(diffs, fmt.Sprintf("  %-14s %s  →  %s", kv.Key, o, kv.Value))
		}
	}
	if len(diffs) > 0 {
		fmt.Fprintf(w, "environment differences:\n%s\n", strings.Join(diffs, "\n"))
	}
	for _, k := range []string{"noise-before", "noise-after"} {
		o, n := calibration(ov[k]), calibration(envValue(new.env, k))
		if o > 0 && n > 0 && (n/o > 1.1 || o/n > 1.1) {
			fmt.Fprintf(w, "warning: the calibration loop (%s) took %+.0f%% in new: the machine itself ran at a different speed, so part of every difference below is the machine's, not the code's\n", k, (n/o-1)*100)
		}
	}
	fmt.Fprintln(w)
}

func envValue(env []store.KV, key string) string {
	for _, kv := range env {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

var calibrationRE = regexp.MustCompile(`median ([0-9.]+(?:ns|us|µs|ms|s))`)

// calibration reads the median of a noise estimate such as
// "cv=3.6% (n=30, median 1.07ms)", in seconds; 0 when absent.
func calibration(s string) float64 {
	m := calibrationRE.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		return 0
	}
	return d.Seconds()
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
		fmt.Fprintf(stderr, "  %s%s [%s]: %s %s, p=%.3g, breaks %s\n", fl.Row.Name, configSuffix(fl.Row.Config), fl.Row.Unit,
			compare.FormatDelta(fl.Row.Delta), compare.FormatCI(fl.Row), fl.Row.P, cmp.Or(fl.Threshold.Text, fl.Threshold.String()))
	}
	return errExit1
}
