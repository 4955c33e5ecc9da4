// Package analysis turns benchmark samples into statistics: per-cell
// summaries (median with a confidence interval), significance tests between
// cells, knees along a numeric axis and crossovers between variants.
//
// Inputs are golang.org/x/perf/benchfmt results. A result's name carries the
// sweep axes as /key=value parts (BenchmarkPool/size=64/reuse=25-2, where the
// -2 suffix is GOMAXPROCS); its "config" key names the perflab configuration
// that produced it. [Collect] groups results into [Sample]s, one per
// (configuration, benchmark name, unit). Statistics come from
// golang.org/x/perf/benchmath, the package benchstat uses, with the
// significance level and confidence set explicitly by [Options], so perflab's
// medians and confidence intervals equal benchstat's.
//
// A series is the set of samples that differ only in the axis value: its name
// is the benchmark name with the axis part removed
// (BenchmarkPool/size=64/variant=plain for axis "reuse"). [KneeFits] judges
// whether each series changes regime ([FitKnee]: a two-segment line that
// beats smooth curves by AICc, with a breakpoint interval from resampling
// rounds) or grows smoothly; [Comparisons] compares two series that differ
// in one key point by point ([CompareAlong]: paired per-round ratios, the
// family-wise error controlled within each sign across the points) and
// finds where they overtake each other, with the direction of the crossing
// and an interval for it.
//
// Two unpaired samples of one benchmark (two runs, two files) are compared
// by [Options.Shift]: the change of medians with the Hodges–Lehmann
// interval of the log shift, cut at the exact Mann-Whitney U critical
// value. A benchmark's medians across runs are split where their
// distribution changes by [EDivisive] (E-divisive means with a
// permutation test). [NaturalOrder] is the one order of axis values.
package analysis
