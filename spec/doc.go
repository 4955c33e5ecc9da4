// Package spec parses and validates perflab experiment specs: TOML files
// that say which benchmarks to run, over which parameter sweeps, under
// which build and runtime configurations, and which published claims the
// results are checked against.
//
// Decoding is strict. A key the format does not define, a value of the
// wrong type, a missing required field or an inconsistent reference is an
// error, and every error names the file and line, like a compiler:
//
//	spec.toml:12: unknown key "benchtim" in [mode.quick]; did you mean "benchtime"?
//	spec.toml:31: duplicate config name "base" (first defined at line 22); give each config its own name
//
// Errors returned by [Parse] are of type *[Error].
//
// # A complete spec
//
//	# Does sync.Pool pay off when objects are rarely reused?
//	name        = "syncpool-reuse"          # required; lower-case letters, digits, '_' and '-'
//	title       = "sync.Pool versus plain allocation across reuse rates"
//	article     = "C-syncpool-reuse-rate.txt"
//	description = """
//	Allocates buffers either with make or through a sync.Pool,
//	and varies how often a pooled buffer is reused."""
//	driver      = "gotest"                  # required; the only driver for now
//	package     = "./bench"                 # relative to this file's directory; default "."
//	benchmarks  = ["BenchmarkReuse"]        # required; top-level benchmark functions
//
//	# Sweep axes, outermost first. The benchmark reads them as sub-benchmarks
//	# named key=value, nested in this order:
//	#   BenchmarkReuse/variant=syncpool/size=4096/reuse=50
//	[[axis]]
//	key   = "variant"
//	quick = ["plain", "syncpool"]           # full omitted: same values in both modes
//
//	[[axis]]
//	key   = "size"
//	quick = [64, 4096]
//	full  = [64, 256, 1024, 4096, 65536]
//
//	[[axis]]
//	key   = "reuse"
//	quick = [0, 50, 100]
//	full  = [0, 10, 25, 50, 75, 90, 100]
//
//	[mode.quick]                            # a fast look; at least 6 rounds
//	rounds    = 6
//	benchtime = "50ms"
//
//	[mode.full]                             # for publication
//	rounds    = 20
//	benchtime = "1000x"
//	cpu       = [1, 4]
//	timeout   = "10m"
//
//	[[config]]
//	name = "base"
//
//	[[config]]
//	name         = "greentea"
//	goexperiment = "greenteagc"
//	gogc         = "off"
//	gomemlimit   = "512MiB"
//
//	[analysis]
//	axis     = "reuse"                      # numeric axis for knees and crossovers
//	by       = "variant"                    # axis whose values are compared
//	baseline = "plain"
//
//	[[claim]]
//	id      = "pool-wins-when-reused"
//	text    = "With 50% reuse, sync.Pool is at least 2x faster than make for 4 KiB buffers."
//	claimed = "2.3x at 4096 bytes, 50% reuse"
//
//	  [[claim.check]]
//	  kind  = "ratio"
//	  where = "size=4096,reuse=50"
//	  num   = "variant=syncpool"
//	  den   = "variant=plain"
//	  op    = "<"
//	  value = 0.5
//
//	[[claim]]
//	id   = "crossover"
//	text = "The pool starts to win somewhere between 10% and 40% reuse, and keeps winning above."
//	not_tested = ["4 KiB buffers only: the claim names no size, and the crossing is located at one"]
//
//	  [[claim.check]]
//	  kind       = "crossover"
//	  where      = "size=4096"
//	  a          = "variant=syncpool"
//	  b          = "variant=plain"
//	  axis       = "reuse"
//	  wins_above = "a"                      # the pool is the faster one above the crossing
//	  min        = 10
//	  max        = 40
//
//	[[claim]]
//	id           = "gc-pressure"
//	text         = "Pools lower GC pressure in production services."
//	not_testable = "needs a production workload, not a micro-benchmark"
//
// # Top-level keys
//
// name (required) identifies the experiment in stores and reports. title,
// article and description are shown in reports. driver (required) is
// "gotest", which builds the package's test binary and runs its benchmarks;
// the HTTP "load" driver is reserved and rejected for now. package is a Go
// package pattern resolved against the directory of the spec file (see
// [Spec.Dir]). benchmarks lists benchmark function names, each matching
// ^Benchmark[A-Za-z0-9_]*$.
//
// # Axes
//
// Each [[axis]] has a key (letters, digits, '_'; unique) and the values it
// takes in quick mode and, optionally, in full mode; without full, full mode
// uses the quick values. Values may be written as TOML strings, integers or
// floats and are kept as text: 64 becomes "64" (0x40 too), 0.5 stays "0.5".
// A value must be non-empty and must not contain spaces, '/', ',' or '=',
// since it becomes part of a sub-benchmark name and of selectors.
//
// # Modes
//
// [mode.quick] and [mode.full] are both required, and no other mode exists.
// rounds is how many interleaved rounds run every benchmark in every config
// once; quick needs at least 6, the fewest samples for which a confidence
// interval around the median exists. benchtime is passed to go test
// -benchtime: a duration ("50ms") or an iteration count ("1000x"); when
// empty, go test's default applies. cpu is an optional -test.cpu list.
// timeout bounds one benchmark run (default "2m"). profile cuts the
// profiling pass, which never shares a run with timings: "config" (default,
// one pass per config over all cells), "cell" (one pass per cell, so each
// cell has its own profiles) or "off"; profile_benchtime is that pass's
// benchtime per benchmark (default: one second of benchmark time per
// config spread over its cells, at least 10ms each, and at most a tenth of
// a --budget).
//
// # Configs
//
// A [[config]] is a named build environment (goexperiment, gotoolchain,
// tags, gcflags, ldflags) plus an exec environment (gomaxprocs, gogc,
// gomemlimit, godebug). ldflags = "-funcalign=64" pins every function's
// entry to 64 bytes, as perflab ab does by default. gomaxprocs, gogc and gomemlimit may be written as integers or
// strings (gogc = "off"). Names are unique. Configs with equal build
// settings share one test binary (see [Config.BuildKey]). A spec without
// configs gets one config named "default" that changes nothing.
//
// modfile names an alternate module file for a config's build (the go
// command's -modfile flag), relative to the spec's directory and ending in
// ".mod" (its checksums are read from the .sum beside it). It is how a
// config with an older gotoolchain builds code whose module asks for a
// newer Go than that toolchain accepts:
//
//	[[config]]
//	name        = "go1.22"
//	gotoolchain = "go1.22.12"
//	modfile     = "go122.mod"   # module github.com/perflab/perflab, go 1.22
//
// pgo is the go command's -pgo flag for a config's build: "off", "auto"
// or a CPU profile file (relative to the spec's directory, or absolute),
// so two configs that differ only in pgo measure what profile-guided
// optimisation gains; the profile's contents are part of the build key.
//
// modes limits a config to some modes: modes = ["full"] keeps a slow
// config (another toolchain to download and build, say) out of quick
// runs. A check that selects its cells then finds none in a quick run and
// is not testable there; say so in its note.
//
// # Analysis
//
// [analysis] names the numeric axis knees and crossovers are computed
// along (axis), the axis whose values are compared (by), the value of by
// that is the baseline, and the unit analysed (default "sec/op"). In a
// spec with no [[axis]] (whole benchmark functions, as perflab bench
// writes for benchmarks whose levels are not one sweep), axis and by name
// key=value levels of the benchmarks' results instead, and each benchmark
// is analysed along its own values; baseline needs axes.
// scaling, when set, names the axis whose values are GOMAXPROCS (its
// values must be positive integers), or "procs" for the -N suffix that the
// mode's cpu list gives; the report then shows each config's throughput
// and scaling efficiency, throughput(P) / (P × throughput(1)), along it.
// With by set, every report says by how much: per point, each value's
// ratio to the baseline's (the first value of the by axis when baseline is
// not set), paired within rounds, with its interval, and a geomean across
// points.
//
// # Units
//
// A [[unit]] table says which way a unit the benchmarks report improves,
// as a benchfmt unit metadata line would: name = "hits/op", better =
// "higher" (or "lower"). Reports and perflab compare take the direction
// from there; a unit without one is better lower (go test's MB/s higher),
// whatever its name.
//
// # Claims and checks
//
// A [[claim]] quotes a published claim (id, text, and the article's
// figures in claimed). It is tested by one or more [[claim.check]] tables,
// or marked not_testable with the reason. A part of a claim with checks
// that no check tests is listed in not_tested, one line each, as
// "<part>: <why it is not tested here>"; every output prints these
// beside the verdict, so a verdict is never read as covering them:
//
//	not_tested = ["P99 142 → 498 µs: go test reports a mean time per op, no per-call latency"]
//
// # The rule
//
// Every check is tested at the claimed size, by one rule (docs/claims.md
// and package claim's documentation state it in full):
//
//   - For a claimed effect F (effect = F, the ratio num/den the article
//     states) the threshold is √F, the log-midpoint between no effect and
//     the claim; op follows (">" when F > 1, "<" when F < 1). A check may
//     state another threshold with value, and then must say why.
//   - A claim of about no change uses op = "~" with band = b: the whole
//     interval must lie inside [1/(1+b), 1+b].
//   - A claimed correlation r (kind "correlation") is tested against
//     tanh(atanh(r)/2), the midpoint on Fisher's z scale.
//   - A claim that states a direction and no size uses op and value = 1.
//   - Verdict of a check: reproduced when its whole interval lies on the
//     claimed side of the threshold (inside the band), contradicted when it
//     lies wholly on the other side (outside the band), inconclusive when
//     it straddles, not testable when the run cannot measure it.
//   - Verdict of a claim: reproduced when every counted check is
//     reproduced; contradicted when at least one counted check is
//     contradicted after Holm's correction across the claim's counted
//     checks; otherwise inconclusive (not testable when no counted check
//     could be measured).
//   - context = true marks a check that holds by construction or only
//     describes the setting: it is shown and never counted. A check that
//     cannot fail must be context.
//   - precondition = "<the situation, in words>" marks a check whose
//     failure means the run did not create the situation the claim is
//     about (e.g. "the unguarded service overloads at 1.5× the knee"):
//     when it holds it is shown as context; when it fails the claim is not
//     testable here, with the measurement as the reason, never
//     contradicted; while it is undecided the claim is at most
//     inconclusive.
//
// Every check result carries its predicate (cells, operator, threshold
// and the threshold's origin), printed beside its verdict.
//
// A check of kind "ratio" compares num/den, in unit, with its threshold.
// The interval is paired by round: the median of the per-round
// log-ratios with its sign-test interval, or a confidence sequence for the
// median in a sequential run (analysis.Options.Paired). num/den < 1 means num takes less than den:
//
//	[[claim.check]]
//	kind   = "ratio"
//	where  = "mode=serial,size=64,reuse=25"
//	num    = "variant=syncpool"
//	den    = "variant=plain"
//	effect = 1.79          # claimed ×1.79: tested as > √1.79 = 1.34
//
//	[[claim.check]]
//	kind  = "ratio"
//	unit  = "parse-sec/op"
//	num   = "variant=arena"
//	den   = "variant=heap"
//	op    = "~"            # claimed ≈ 0% change
//	band  = 0.10           # inside [1/1.1, 1.1]
//
//	[[claim.check]]
//	kind   = "ratio"
//	num    = "profile=optimized"
//	den    = "profile=baseline"
//	effect = 40.3
//	value  = 3
//	why    = "the load generator shares the machine: ×40 cannot be reached on 2 cores"
//
// A check of kind "crossover" holds when series a and b cross along axis
// at a value in [min, max], the series named by wins_above ("a" or "b",
// required) being the better one above the crossing: the lower one in
// unit, or the higher one for a unit the spec's [[unit]] table declares
// better = "higher" (and go test's MB/s). unit defaults to "sec/op";
// note is shown with the verdict; why explains a stated threshold.
//
// A check of kind "value" compares one cell with a threshold: the median
// of the cell num, in unit, compared to value with op ("<", "<=", ">" or
// ">="; value may be any number, 0 included). It is reproduced when the
// whole confidence interval of the median satisfies the relation,
// contradicted when the whole interval violates it, and inconclusive
// otherwise (or with fewer than six samples):
//
//	[[claim.check]]
//	kind  = "value"
//	where = "size=64"
//	num   = "variant=arena"
//	unit  = "gc-cycles/op"
//	op    = "<"
//	value = 0.5
//
// A check of kind "knee" says where series a changes regime along axis, a
// numeric axis. A knee is a two-segment line that beats a straight line
// and smooth curves (quadratic, cubic, power law, sum of two powers,
// exponential; in log-log when the axis spans two decades) by AICc, with an interval for its breakpoint
// from resampling rounds. The window is [min, max] widened by one grid
// step (to the sampled values next below min and above max): a
// breakpoint between two sampled values cannot be placed more finely.
// The check is reproduced when the knee's interval lies inside the
// window; contradicted when it lies wholly outside it, or when the series
// grows smoothly; otherwise inconclusive, as when the interval reaches
// beyond the window, noise leaves both possible or no interior point of
// the sweep lies in the window. It needs at least 7 points to weigh a
// knee at all. bend = "up" claims the series grows faster after the knee
// (a jump in cost), "down" that it flattens: a knee that bends the other
// way contradicts the check wherever it lies.
// Neither where nor a may select on axis:
//
//	[[claim.check]]
//	kind  = "knee"
//	a     = "lib=encoding_json,op=marshal"
//	axis  = "depth"
//	min   = 6
//	max   = 6
//
// A crossover check compares a with b at every common axis value by the
// per-round paired ratio (median, sign test, the family-wise error
// held within each sign across the points); a crossover is a difference
// decided of each sign on its two sides, located with an interval from
// resampling rounds. It is reproduced when a crossing in the claimed
// direction (wins_above better above it) has its interval inside
// [min, max] and no crossing the other way reaches the range;
// contradicted when a crossing the other way reaches the range, when the
// only crossings lie wholly outside it, or when a − b keeps one
// significant sign on both sides of the range; otherwise inconclusive.
//
// A check of kind "profile" reads the CPU profile of one cell, which the
// profiling pass writes when every mode has profile = "cell". The pass
// profiles each cell once, so its share has no run-to-run interval: a
// profile check is always shown as context and never counted, whether or
// not it sets context. A share that a claim's verdict rests on is
// reported by the benchmark once per round (a profile of the cell's own
// fixed window, say) and tested by a value or ratio check. unit names
// the share of its samples to test, "heap-lock-share" (runtime lock frames
// reached from the heap allocator, the default) or "lock-share" (any
// runtime lock frame), as package profshare counts them. The share of the
// cell num is compared to value (a share in [0, 1]) with op ("<", "<=",
// ">" or ">="); with den, the difference share(num) − share(den) is, and
// value lies in [-1, 1]. It is reproduced when the whole interval (Wilson's
// for a share, Newcombe's for a difference) satisfies the relation,
// contradicted when the whole interval violates it, inconclusive otherwise,
// and not testable when a cell has no readable profile with samples. The
// key procs matches only when the mode's cpu list has one value:
//
//	[[claim.check]]
//	kind  = "profile"
//	unit  = "heap-lock-share"
//	where = "gomaxprocs=2"
//	num   = "variant=pooled"
//	den   = "variant=plain"
//	op    = "<"
//	value = 0
//
// A check of kind "contrast" compares one ratio taken in two series: the
// ratio num/den in series a divided by the same ratio in series b, paired
// by round, against a threshold stated as for a ratio check. It tests
// "encoding/json slows down more from depth 5 to 8 than jsoniter":
//
//	[[claim.check]]
//	kind   = "contrast"
//	where  = "op=marshal,fanout=1"
//	num    = "depth=8"
//	den    = "depth=5"
//	a      = "lib=encoding_json"
//	b      = "lib=jsoniter"
//	effect = 1.46          # ×3.41 against ×2.34
//
// A check of kind "correlation" reads one cell num whose benchmark
// reports, in unit, one Pearson coefficient per round, computed over the
// time series the benchmark sampled during that round (e.g. runtime/metrics
// every 50 ms). The rounds are the independent units: the coefficients are
// summarised on Fisher's z scale (median and its distribution-free
// interval, mapped back with tanh), never by treating the autocorrelated
// windows of one series as independent. effect is the claimed r; op and
// value may state another threshold (with why):
//
//	[[claim.check]]
//	kind   = "correlation"
//	unit   = "r-scav-lockwait"
//	num    = "variant=plain,gpp=64,gomaxprocs=2"
//	effect = 0.93          # tested as r > tanh(atanh(0.93)/2) = 0.68
//
// Selectors (where, num, den, a, b) are comma-separated key=value pairs,
// such as "mode=serial,size=64"; see [ParseSelector]. where applies to both
// sides of a check and must not repeat their keys.
package spec
