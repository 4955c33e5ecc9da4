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
// (BenchmarkPool/size=64/variant=plain for axis "reuse"). [Knees] finds where
// each series bends ([FindKnee]: Kneedle and a two-segment piecewise-linear
// fit); [Crossovers] finds where two series that differ in one key overtake
// each other ([FindCrossovers]: a significant difference that changes sign).
package analysis
