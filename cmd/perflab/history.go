package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
)

var cmdHistory = &command{
	rank:    47,
	name:    "history",
	summary: "one benchmark's metric over the stored runs, with change points",
	usage:   "BENCHMARK [--unit U] [--config C] [--json]",
	help: `
History prints a benchmark's median (with its confidence interval) in every
stored run that measured it, oldest first, and flags change points found by
E-divisive means (a permutation test at --alpha decides each one), naming
the runs on each side. BENCHMARK is the full name as "perflab export"
prints it, with or without the "Benchmark" prefix and with or without the
GOMAXPROCS suffix (-2); the suffix is needed only when the benchmark ran
at several GOMAXPROCS values.

Examples:
  perflab history BenchmarkPool/mode=serial/size=64/variant=plain/reuse=25
  perflab history Pool/mode=serial/size=64/variant=syncpool/reuse=50 --unit B/op`,
}

type historyFlags struct {
	common
	unit, config string
	asJSON       bool
	perms        int
	minSize      int
}

func (f *historyFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	f.alphaFlag(fs, alphaHistory)
	fs.StringVar(&f.unit, "unit", "sec/op", "the `unit` to follow")
	fs.StringVar(&f.config, "config", "", "the perflab `config` (default: the only one; the one of each run when runs name it differently; else \"default\"); a,b follows config a, then b, across runs")
	fs.BoolVar(&f.asJSON, "json", false, "print the series and change points as JSON")
	fs.IntVar(&f.perms, "permutations", 199, "permutations per change-point test")
	fs.IntVar(&f.minSize, "min-runs", 3, "fewest runs on each side of a change point")
}

func init() {
	define(cmdHistory, func(f *historyFlags, pos []string, stdout, stderr io.Writer) error {
		if len(pos) != 1 {
			return fmt.Errorf("want one BENCHMARK name, got %d arguments (see \"perflab export latest\" for names)", len(pos))
		}
		if f.minSize < 2 {
			return fmt.Errorf("--min-runs %d: a side needs at least 2 runs", f.minSize)
		}
		db, err := openReadDB(f.db)
		if err != nil {
			return err
		}
		defer db.Close()
		h, err := findings.LoadHistory(context.Background(), db, pos[0], findings.HistoryOptions{Unit: f.unit, Config: f.config, Stats: f.options(),
			Changes: analysis.EDivisiveOptions{Alpha: f.alpha, Permutations: f.perms, MinSize: f.minSize}})
		if err != nil {
			return err
		}
		if f.asJSON {
			return report.JSON(stdout, h)
		}
		return report.HistoryText(stdout, h)
	})
}
