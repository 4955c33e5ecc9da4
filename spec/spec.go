package spec

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Error is a spec problem at a place in the file.
type Error struct {
	File string // path of the spec file, as given to Parse or Load
	Line int    // 1-based line of the problem; 0 when it concerns the whole file
	Msg  string // what is wrong and, where possible, how to fix it
}

// Error returns "File:Line: Msg", or "File: Msg" when Line is 0.
func (e *Error) Error() string {
	if e.Line <= 0 {
		return e.File + ": " + e.Msg
	}
	return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
}

// Spec is a decoded and validated experiment spec.
type Spec struct {
	Name        string          `toml:"name"`        // required, [a-z0-9_-]+
	Title       string          `toml:"title"`       // one-line human title
	Article     string          `toml:"article"`     // optional source article, e.g. "C-syncpool-reuse-rate.txt"
	Description string          `toml:"description"` // free text
	Driver      string          `toml:"driver"`      // required; "gotest" is the only driver accepted
	Package     string          `toml:"package"`     // go package pattern relative to Dir; default "."
	Benchmarks  []string        `toml:"benchmarks"`  // required, each matching ^Benchmark[A-Za-z0-9_]*$
	Axes        []Axis          `toml:"axis"`        // sweep axes in sub-benchmark nesting order
	Modes       map[string]Mode `toml:"mode"`        // exactly "quick" and "full"
	Configs     []Config        `toml:"config"`      // build/exec configurations; never empty after Parse
	Analysis    Analysis        `toml:"analysis"`    // what knees and crossovers are computed on
	Claims      []Claim         `toml:"claim"`       // published claims to give verdicts on
	Units       []Unit          `toml:"unit"`        // which way units improve (see [Unit])

	File   string `toml:"-"` // path given to Parse or Load
	Dir    string `toml:"-"` // directory of File, against which Package is resolved
	Source []byte `toml:"-"` // the raw text of the spec
}

// Axis is one sweep dimension. Its values appear in sub-benchmark names as
// "Key=value", nested in the order the axes are declared.
type Axis struct {
	Key   string   `toml:"key"`   // required, [A-Za-z0-9_]+, unique among axes
	Quick []string `toml:"quick"` // values for quick mode, as written ("64", "0.5", "serial")
	Full  []string `toml:"full"`  // values for full mode; equal to Quick when absent
	Line  int      `toml:"-"`     // line of the [[axis]] header
}

// Mode says how much measuring one run does.
type Mode struct {
	Rounds    int    `toml:"rounds"`    // interleaved rounds, >= 1 (>= 6 for quick)
	Benchtime string `toml:"benchtime"` // go test -benchtime: a duration ("50ms") or "Nx"; empty leaves go test's default
	CPU       []int  `toml:"cpu"`       // optional -test.cpu list, each >= 1
	Timeout   string `toml:"timeout"`   // per-cell timeout duration; default "2m"
	// Profile says how the profiling pass is cut: "config" (default: one
	// pass per config over all cells), "cell" (one pass per cell, for
	// per-cell profile figures) or "off".
	Profile          string `toml:"profile"`
	ProfileBenchtime string `toml:"profile_benchtime"` // benchtime of the profiling pass; default: 1s per config spread over its cells
	// Measure adds measurements beside wall time: "instructions" (per op,
	// under valgrind's Cachegrind) or "instructions,cache" (and simulated
	// cache misses); see ParseMeasure. Empty measures time only.
	Measure string `toml:"measure"`
}

// Config is a named build environment plus an exec environment.
type Config struct {
	Name         string   `toml:"name"`         // required, unique
	GOEXPERIMENT string   `toml:"goexperiment"` // build env
	GOTOOLCHAIN  string   `toml:"gotoolchain"`  // build env
	Tags         []string `toml:"tags"`         // build flag -tags
	GCFlags      string   `toml:"gcflags"`      // build flag -gcflags
	LDFlags      string   `toml:"ldflags"`      // build flag -ldflags (e.g. "-funcalign=64": pinned function alignment)
	GOMAXPROCS   string   `toml:"gomaxprocs"`   // exec env; TOML integer or string
	GOGC         string   `toml:"gogc"`         // exec env; TOML integer or string ("off")
	GOMEMLIMIT   string   `toml:"gomemlimit"`   // exec env; TOML integer or string ("512MiB")
	GODEBUG      string   `toml:"godebug"`      // exec env
	Line         int      `toml:"-"`            // line of the [[config]] header; 0 for the implicit default
	// Modfile is an alternate module file for the build (build flag
	// -modfile), relative to the spec's directory: e.g. a go.mod with an
	// older go line for a config whose GOTOOLCHAIN predates the module's.
	Modfile string `toml:"modfile"`
	// PGO is the build flag -pgo: "off", "auto" (the go command's
	// default: default.pgo of the main package, if any) or a CPU profile
	// file, relative to the spec's directory or absolute. Two configs that
	// differ only in PGO measure what profile-guided optimisation gains.
	PGO string `toml:"pgo"`
	// Modes lists the modes the config runs in ("quick", "full"); empty:
	// every mode. A config too slow for quick mode is full-only, and its
	// checks say so when a quick run lacks its cells.
	Modes []string `toml:"modes"`
}

// BuildEnv returns "GOEXPERIMENT=…" and "GOTOOLCHAIN=…" for the fields that
// are set, sorted.
func (c Config) BuildEnv() []string {
	var env []string
	if c.GOEXPERIMENT != "" {
		env = append(env, "GOEXPERIMENT="+c.GOEXPERIMENT)
	}
	if c.GOTOOLCHAIN != "" {
		env = append(env, "GOTOOLCHAIN="+c.GOTOOLCHAIN)
	}
	sort.Strings(env)
	return env
}

// BuildFlags returns the go build flags of the config: "-tags=a,b" (tags
// sorted), "-gcflags=…", "-ldflags=…", "-modfile=…" and "-pgo=…", for the
// fields that are set.
func (c Config) BuildFlags() []string {
	var flags []string
	if len(c.Tags) > 0 {
		tags := slices.Clone(c.Tags)
		sort.Strings(tags)
		tags = slices.Compact(tags)
		flags = append(flags, "-tags="+strings.Join(tags, ","))
	}
	if c.GCFlags != "" {
		flags = append(flags, "-gcflags="+c.GCFlags)
	}
	if c.LDFlags != "" {
		flags = append(flags, "-ldflags="+c.LDFlags)
	}
	if c.Modfile != "" {
		flags = append(flags, "-modfile="+c.Modfile)
	}
	if c.PGO != "" {
		flags = append(flags, "-pgo="+c.PGO)
	}
	return flags
}

// BuildKey returns a canonical text of the build environment and build
// flags, one item per line. Configs that build the same binary have equal
// keys, whatever their names and exec environments; a config with no build
// settings has the key "".
func (c Config) BuildKey() string {
	return strings.Join(append(c.BuildEnv(), c.BuildFlags()...), "\n")
}

// ExecEnv returns "GOMAXPROCS=…", "GOGC=…", "GOMEMLIMIT=…" and "GODEBUG=…",
// in that order, for the fields that are set.
func (c Config) ExecEnv() []string {
	var env []string
	for _, kv := range [...][2]string{
		{"GOMAXPROCS", c.GOMAXPROCS},
		{"GOGC", c.GOGC},
		{"GOMEMLIMIT", c.GOMEMLIMIT},
		{"GODEBUG", c.GODEBUG},
	} {
		if kv[1] != "" {
			env = append(env, kv[0]+"="+kv[1])
		}
	}
	return env
}

// Analysis names the axes that knees and crossovers are computed on.
type Analysis struct {
	Axis     string `toml:"axis"`     // numeric axis for knees and crossovers
	By       string `toml:"by"`       // axis whose values are compared for crossovers
	Baseline string `toml:"baseline"` // value of By that is the baseline
	Unit     string `toml:"unit"`     // default "sec/op"
	// Scaling names the axis whose values are GOMAXPROCS ("procs" for the
	// -N suffix that -test.cpu gives); the report then shows throughput
	// and scaling efficiency along it.
	Scaling string `toml:"scaling"`
}

// Claim is a published performance claim and the checks that test it.
type Claim struct {
	ID          string  `toml:"id"`           // required, unique
	Text        string  `toml:"text"`         // the claim as published
	Claimed     string  `toml:"claimed"`      // the article's figures, shown as context
	NotTestable string  `toml:"not_testable"` // why the claim cannot be tested; excludes Checks
	Checks      []Check `toml:"check"`        // at least one unless NotTestable is set
	// NotTested lists the parts of a claim with checks that no check
	// tests, each as "<part>: <why it is not tested here>", e.g. "P99 at
	// depth 8: go test reports no per-call latency". Every output prints
	// them beside the verdict, so an untested half of a claim is never
	// read as tested.
	NotTested []string `toml:"not_tested"`
	Line      int      `toml:"-"` // line of the [[claim]] header
}

// Check is one predicate over measurements. Kind "ratio" holds when
// Num/Den Op Value; kind "crossover" holds when series A and B cross
// along Axis within [Min, Max], the series WinsAbove better above the
// crossing; kind "value" holds when the median of the
// cell Num Op Value (Op also "<=" or ">="); kind "knee" holds when series A
// has its knee along Axis within [Min, Max].
type Check struct {
	Kind  string  `toml:"kind"`  // "ratio", "crossover", "value" or "knee"
	Unit  string  `toml:"unit"`  // default "sec/op"
	Where string  `toml:"where"` // selector common to both sides
	Num   string  `toml:"num"`   // ratio: numerator selector
	Den   string  `toml:"den"`   // ratio: denominator selector
	Op    string  `toml:"op"`    // ratio: "<" or ">"
	Value float64 `toml:"value"` // ratio: threshold, > 0
	A     string  `toml:"a"`     // crossover: selector of series A
	B     string  `toml:"b"`     // crossover: selector of series B
	Axis  string  `toml:"axis"`  // crossover: axis key
	Min   float64 `toml:"min"`   // crossover: lower bound of the expected crossing
	Max   float64 `toml:"max"`   // crossover: upper bound of the expected crossing
	Note  string  `toml:"note"`  // shown with the verdict

	// WinsAbove names the series ("a" or "b") a crossover check claims
	// is better above the crossing, at higher axis values: lower in its
	// unit, or higher for a unit the spec declares better = "higher"
	// (see HigherIsBetter). Required on crossover checks.
	WinsAbove string `toml:"wins_above"`
	// HigherIsBetter is the direction of Unit from the spec's [[unit]]
	// declarations (and go test's MB/s), set by Parse: what "wins" means
	// for WinsAbove.
	HigherIsBetter bool `toml:"-"`

	// Effect is the claimed effect F as the ratio num/den the article
	// states. Without Value, a ratio check tests the log-midpoint
	// threshold √F, with Op ">" when F > 1 and "<" when F < 1.
	Effect float64 `toml:"effect"`
	// Why gives the reason for an explicit Value when Effect is set too.
	Why string `toml:"why"`
	// Band is the equivalence band of Op "~": the whole interval of
	// num/den must lie inside [1/(1+Band), 1+Band].
	Band float64 `toml:"band"`
	// Context marks a check that holds by construction: it is shown, never
	// counted in the claim's verdict.
	Context bool `toml:"context"`
	// Precondition, when set, marks a check that tests the situation the
	// claim is about (the load overloads the service, the run saturates
	// it), in words: "the unguarded service overloads at 1.5× the knee".
	// It never counts as evidence: when it holds it is shown as context;
	// when it fails, the claim is not testable here, with the measurement
	// as the reason (package claim).
	Precondition string `toml:"precondition"`

	Line int `toml:"-"` // line of the [[claim.check]] header
}

// Parse decodes and validates the spec text data. file names the spec in
// errors and sets File and Dir. Every error is an *Error.
func Parse(file string, data []byte) (*Spec, error) {
	src := slices.Clone(data)
	raw, err := decode(file, src)
	if err != nil {
		return nil, err
	}
	s := &Spec{File: file, Dir: filepath.Dir(file), Source: src}
	v := &validator{file: file, idx: buildIndex(src), s: s}
	v.run(raw)
	if err := v.first(); err != nil {
		return nil, err
	}
	return s, nil
}

// MaxSize is the largest spec file Load reads: a spec is a short TOML
// file, and a larger one (or a device such as /dev/zero) is refused before
// it fills memory.
const MaxSize = 4 << 20

// Load reads the spec file at path and parses it.
func Load(path string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("spec: read %s: %w (check the path to the spec file)", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("spec: read %s: %w (check the path to the spec file)", path, err)
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("spec: %s is larger than %d MiB; a spec is a short TOML file (see \"perflab help spec\")", path, MaxSize>>20)
	}
	return Parse(path, data)
}

// Mode returns the mode called name ("quick" or "full").
func (s *Spec) Mode(name string) (Mode, error) {
	m, ok := s.Modes[name]
	if !ok {
		return Mode{}, fmt.Errorf("spec %s: unknown mode %q; the spec defines: %s", s.Name, name, strings.Join(s.modeNames(), ", "))
	}
	return m, nil
}

// AxisValues returns, per axis in declaration order, the values the axis
// takes in the given mode.
func (s *Spec) AxisValues(mode string) ([][]string, error) {
	if _, err := s.Mode(mode); err != nil {
		return nil, err
	}
	out := make([][]string, len(s.Axes))
	for i, a := range s.Axes {
		switch mode {
		case "quick":
			out[i] = slices.Clone(a.Quick)
		case "full":
			out[i] = slices.Clone(a.Full)
		default:
			return nil, fmt.Errorf("spec %s: mode %q has no axis values; use quick or full", s.Name, mode)
		}
	}
	return out, nil
}

func (s *Spec) modeNames() []string {
	names := make([]string, 0, len(s.Modes))
	for n := range s.Modes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
