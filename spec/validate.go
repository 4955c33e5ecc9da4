package spec

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/pelletier/go-toml/v2/unstable"
)

// Modes every spec defines: quick for a fast look, full for publication.
const (
	quickMode = "quick"
	fullMode  = "full"
)

// minQuickRounds is the fewest rounds quick mode may have: benchmath needs
// six samples for a confidence interval around the median.
const minQuickRounds = 6

const defaultUnit = "sec/op"

var (
	nameRE       = regexp.MustCompile(`^[a-z0-9_-]+$`)
	benchmarkRE  = regexp.MustCompile(`^Benchmark[A-Za-z0-9_]*$`)
	axisKeyRE    = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	configNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	claimIDRE    = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	countRE      = regexp.MustCompile(`^[1-9][0-9]*x$`)
	experimentRE = regexp.MustCompile(`^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$`)
	toolchainRE  = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)
	tagRE        = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)
	memLimitRE   = regexp.MustCompile(`^(off|[0-9]+(B|KiB|MiB|GiB|TiB)?)$`)
	godebugRE    = regexp.MustCompile(`^[A-Za-z0-9_.]+=[^,=\s]*(,[A-Za-z0-9_.]+=[^,=\s]*)*$`)
)

func modeNames() []string { return []string{fullMode, quickMode} }

// validator checks a decoded spec, fills s and collects errors with lines.
type validator struct {
	file string
	idx  *posIndex
	s    *Spec
	errs []*Error
}

// at records an error about the thing at path (see posIndex.line).
func (v *validator) at(path, format string, args ...any) {
	v.errs = append(v.errs, &Error{File: v.file, Line: v.idx.line(path), Msg: fmt.Sprintf(format, args...)})
}

// first returns the earliest error in file order (whole-file errors first).
func (v *validator) first() error {
	if len(v.errs) == 0 {
		return nil
	}
	sort.SliceStable(v.errs, func(i, j int) bool { return v.errs[i].Line < v.errs[j].Line })
	return v.errs[0]
}

func (v *validator) run(raw *rawSpec) {
	s := v.s
	s.Name, s.Title, s.Article, s.Description = raw.Name, raw.Title, raw.Article, raw.Description
	s.Driver, s.Package, s.Benchmarks = raw.Driver, raw.Package, raw.Benchmarks
	s.Analysis = raw.Analysis

	switch {
	case s.Name == "":
		v.at("name", `name is missing; add name = "my-experiment" (lower-case letters, digits, '_' and '-')`)
	case !nameRE.MatchString(s.Name):
		v.at("name", "name %q may use only lower-case letters, digits, '_' and '-'", s.Name)
	}
	switch s.Driver {
	case "gotest":
	case "":
		v.at("driver", `driver is missing; add driver = "gotest"`)
	case "load":
		v.at("driver", `driver "load" is not available yet; use driver = "gotest"`)
	default:
		v.at("driver", `unknown driver %q; use driver = "gotest"`, s.Driver)
	}
	if s.Package == "" {
		s.Package = "."
	}
	if filepath.IsAbs(s.Package) || strings.ContainsFunc(s.Package, unicode.IsSpace) {
		v.at("package", "package %q must be a Go package pattern relative to the spec's directory, such as \".\" or \"./bench\"", s.Package)
	}
	v.benchmarks()
	v.axes(raw.Axes)
	v.modes(raw.Modes)
	v.configs(raw.Configs)
	v.analysis()
	v.scaling()
	v.units(raw.Units) // before claims: a crossover's wins_above reads the directions
	v.claims(raw.Claims)
}

func (v *validator) benchmarks() {
	if len(v.s.Benchmarks) == 0 {
		v.at("benchmarks", `benchmarks is missing or empty; list the benchmark functions to run, e.g. benchmarks = ["BenchmarkReuse"]`)
		return
	}
	seen := map[string]bool{}
	for i, b := range v.s.Benchmarks {
		p := fmt.Sprintf("benchmarks[%d]", i)
		switch {
		case !benchmarkRE.MatchString(b):
			v.at(p, "benchmark %q must be a benchmark function name matching ^Benchmark[A-Za-z0-9_]*$ (no sub-benchmark parts; sweep those with [[axis]])", b)
		case seen[b]:
			v.at(p, "benchmark %q is listed twice", b)
		}
		seen[b] = true
	}
}

func (v *validator) axes(raw []rawAxis) {
	first := map[string]int{}
	for i, ra := range raw {
		p := fmt.Sprintf("axis[%d]", i)
		a := Axis{Key: ra.Key, Line: v.idx.line(p)}
		switch {
		case a.Key == "":
			v.at(p, `axis %d has no key; add key = "name" (the name used in sub-benchmarks as name=value)`, i+1)
		case !axisKeyRE.MatchString(a.Key):
			v.at(p+".key", "axis key %q may use only letters, digits and '_'", a.Key)
		default:
			if l, dup := first[a.Key]; dup {
				v.at(p+".key", "duplicate axis key %q (first defined at line %d); each axis needs its own key", a.Key, l)
			} else {
				first[a.Key] = a.Line
			}
		}
		a.Quick = v.axisValues(p+".quick", a.Key, ra.Quick)
		if len(a.Quick) == 0 {
			v.at(p+".quick", "axis %q has no quick values; add quick = [...] with at least one value", a.Key)
		}
		if ra.Full == nil && !v.idx.has(p+".full") {
			a.Full = slices.Clone(a.Quick)
		} else {
			a.Full = v.axisValues(p+".full", a.Key, ra.Full)
			if len(a.Full) == 0 {
				v.at(p+".full", "axis %q has an empty full list; give values or remove full to reuse quick", a.Key)
			}
		}
		v.s.Axes = append(v.s.Axes, a)
	}
}

// axisValues turns the decoded values at path into their text.
func (v *validator) axisValues(path, key string, raw []flexText) []string {
	vals := make([]string, 0, len(raw))
	seen := map[string]bool{}
	for j, r := range raw {
		ep := fmt.Sprintf("%s[%d]", path, j)
		val, ok := v.scalarText(ep, string(r), fmt.Sprintf("axis %q value", key))
		if !ok {
			continue
		}
		switch {
		case val == "":
			v.at(ep, "axis %q has an empty value; remove it", key)
		case strings.ContainsFunc(val, func(c rune) bool {
			return unicode.IsSpace(c) || !unicode.IsPrint(c) || strings.ContainsRune("/,=", c)
		}):
			v.at(ep, "axis %q value %q must not contain spaces, '/', ',' or '=' (it becomes part of a sub-benchmark name)", key, val)
		case seen[val]:
			v.at(ep, "axis %q lists value %q twice", key, val)
		}
		seen[val] = true
		vals = append(vals, val)
	}
	return vals
}

// scalarText returns the text of a string or number written at path:
// integers in canonical decimal form, floats as written. Booleans and
// other kinds are reported as errors about what.
func (v *validator) scalarText(path, text, what string) (string, bool) {
	switch k := v.idx.kind(path); k {
	case unstable.Integer:
		if n, err := strconv.ParseInt(text, 0, 64); err == nil {
			return strconv.FormatInt(n, 10), true
		}
		return text, true
	case unstable.Float:
		return strings.ReplaceAll(text, "_", ""), true
	case unstable.String, unstable.Invalid:
		return text, true
	default:
		v.at(path, "%s %s is %s; write a number or a string", what, text, kindName(k))
		return "", false
	}
}

func (v *validator) modes(raw map[string]Mode) {
	v.s.Modes = map[string]Mode{}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		m := raw[name]
		p := "mode." + name
		if name != quickMode && name != fullMode {
			v.at(p, "unknown mode %q; the modes are [mode.quick] and [mode.full]", name)
			continue
		}
		minRounds := 1
		if name == quickMode {
			minRounds = minQuickRounds
		}
		switch {
		case m.Rounds < 1 && !v.idx.has(p+".rounds"):
			v.at(p, "mode %q has no rounds; add rounds = %d or more", name, max(minRounds, 10))
		case m.Rounds < minRounds && name == quickMode:
			v.at(p+".rounds", "mode %q has rounds = %d; it needs at least %d, the fewest samples that give a median a confidence interval", name, m.Rounds, minRounds)
		case m.Rounds < minRounds:
			v.at(p+".rounds", "mode %q has rounds = %d; it needs at least %d", name, m.Rounds, minRounds)
		}
		if m.Benchtime != "" && !validBenchtime(m.Benchtime) {
			v.at(p+".benchtime", "mode %q benchtime %q must be a positive duration such as \"50ms\" or an iteration count such as \"1000x\"", name, m.Benchtime)
		}
		seen := map[int]bool{}
		for j, c := range m.CPU {
			switch {
			case c < 1:
				v.at(fmt.Sprintf("%s.cpu[%d]", p, j), "mode %q cpu value %d must be at least 1", name, c)
			case seen[c]:
				v.at(fmt.Sprintf("%s.cpu[%d]", p, j), "mode %q lists cpu %d twice", name, c)
			}
			seen[c] = true
		}
		if m.Timeout == "" {
			m.Timeout = "2m"
		} else if d, err := time.ParseDuration(m.Timeout); err != nil || d <= 0 {
			v.at(p+".timeout", "mode %q timeout %q must be a positive duration such as \"2m\"", name, m.Timeout)
		}
		switch m.Profile {
		case "":
			m.Profile = "config"
		case "config", "cell", "off":
		default:
			v.at(p+".profile", "mode %q profile %q must be \"config\", \"cell\" or \"off\"", name, m.Profile)
		}
		if m.ProfileBenchtime != "" && !validBenchtime(m.ProfileBenchtime) {
			v.at(p+".profile_benchtime", "mode %q profile_benchtime %q must be a positive duration such as \"50ms\" or an iteration count such as \"1000x\"", name, m.ProfileBenchtime)
		}
		if _, err := ParseMeasure(m.Measure); err != nil {
			v.at(p+".measure", "mode %q %v", name, err)
		}
		v.s.Modes[name] = m
	}
	for _, name := range []string{quickMode, fullMode} {
		if _, ok := raw[name]; !ok {
			v.at("mode", "mode %q is missing; add a [mode.%s] table with rounds and benchtime (a spec needs both [mode.quick] and [mode.full])", name, name)
		}
	}
}

// kindName words a TOML value kind for messages.
func kindName(k unstable.Kind) string {
	switch k {
	case unstable.Bool:
		return "a boolean"
	case unstable.Array:
		return "an array"
	case unstable.InlineTable:
		return "a table"
	default:
		return "a date or time"
	}
}

func validBenchtime(s string) bool {
	if countRE.MatchString(s) {
		return true
	}
	d, err := time.ParseDuration(s)
	return err == nil && d > 0
}

func (v *validator) configs(raw []rawConfig) {
	if len(raw) == 0 {
		v.s.Configs = []Config{{Name: "default"}}
		return
	}
	first := map[string]int{}
	for i, rc := range raw {
		p := fmt.Sprintf("config[%d]", i)
		c := Config{
			Name: rc.Name, GOEXPERIMENT: rc.GOEXPERIMENT, GOTOOLCHAIN: rc.GOTOOLCHAIN,
			Tags: rc.Tags, GCFlags: rc.GCFlags, LDFlags: rc.LDFlags, GODEBUG: rc.GODEBUG,
			Line: v.idx.line(p),
		}
		c.Modfile = v.modfile(p+".modfile", c.Name, rc.Modfile)
		c.PGO = v.pgo(p+".pgo", c.Name, rc.PGO)
		c.Modes = v.configModes(p+".modes", c.Name, rc.Modes)
		switch {
		case c.Name == "":
			v.at(p, `config %d has no name; add name = "..." (letters, digits, '_', '.' and '-')`, i+1)
		case !configNameRE.MatchString(c.Name):
			v.at(p+".name", "config name %q may use only letters, digits, '_', '.' and '-'", c.Name)
		default:
			if l, dup := first[c.Name]; dup {
				v.at(p+".name", "duplicate config name %q (first defined at line %d); give each config its own name", c.Name, l)
			} else {
				first[c.Name] = v.idx.line(p + ".name")
			}
		}
		what := fmt.Sprintf("config %q", c.Name)
		c.GOMAXPROCS = v.configNumber(p+".gomaxprocs", string(rc.GOMAXPROCS), what+" gomaxprocs")
		c.GOGC = v.configNumber(p+".gogc", string(rc.GOGC), what+" gogc")
		c.GOMEMLIMIT = v.configNumber(p+".gomemlimit", string(rc.GOMEMLIMIT), what+" gomemlimit")
		if c.GOEXPERIMENT != "" && !experimentRE.MatchString(c.GOEXPERIMENT) {
			v.at(p+".goexperiment", "%s goexperiment %q must be comma-separated experiment names, e.g. \"greenteagc\" or \"nogreenteagc,jsonv2\"", what, c.GOEXPERIMENT)
		}
		if c.GOTOOLCHAIN != "" && !toolchainRE.MatchString(c.GOTOOLCHAIN) {
			v.at(p+".gotoolchain", "%s gotoolchain %q must be a toolchain name such as \"go1.25.0\" or \"local\"", what, c.GOTOOLCHAIN)
		}
		for j, t := range c.Tags {
			if !tagRE.MatchString(t) {
				v.at(fmt.Sprintf("%s.tags[%d]", p, j), "%s build tag %q may use only letters, digits, '_' and '.'; list tags as separate strings", what, t)
			}
		}
		if strings.ContainsFunc(c.GCFlags, func(r rune) bool { return !unicode.IsPrint(r) }) {
			v.at(p+".gcflags", "%s gcflags must be printable text on one line", what)
		}
		if strings.ContainsFunc(c.LDFlags, func(r rune) bool { return !unicode.IsPrint(r) }) {
			v.at(p+".ldflags", "%s ldflags must be printable text on one line", what)
		}
		if c.GOMAXPROCS != "" {
			if n, err := strconv.Atoi(c.GOMAXPROCS); err != nil || n < 1 {
				v.at(p+".gomaxprocs", "%s gomaxprocs %q must be a positive integer", what, c.GOMAXPROCS)
			}
		}
		if c.GOGC != "" && c.GOGC != "off" {
			if n, err := strconv.Atoi(c.GOGC); err != nil || n < 0 {
				v.at(p+".gogc", "%s gogc %q must be a non-negative integer or \"off\"", what, c.GOGC)
			}
		}
		if c.GOMEMLIMIT != "" && !memLimitRE.MatchString(c.GOMEMLIMIT) {
			v.at(p+".gomemlimit", "%s gomemlimit %q must be a byte count with an optional unit (B, KiB, MiB, GiB, TiB), e.g. \"512MiB\", or \"off\"", what, c.GOMEMLIMIT)
		}
		if c.GODEBUG != "" && !godebugRE.MatchString(c.GODEBUG) {
			v.at(p+".godebug", "%s godebug %q must be comma-separated name=value settings, e.g. \"gctrace=1,madvdontneed=1\"", what, c.GODEBUG)
		}
		v.s.Configs = append(v.s.Configs, c)
	}
}

// configNumber returns the text of an exec-env value that may be written
// as a TOML integer or string.
func (v *validator) configNumber(path, text, what string) string {
	if k := v.idx.kind(path); k == unstable.Float {
		v.at(path, "%s %s must be an integer or a string, not a float", what, text)
		return ""
	}
	s, _ := v.scalarText(path, text, what)
	return s
}

// axis returns the axis called key, if any.
func (v *validator) axis(key string) (Axis, bool) {
	for _, a := range v.s.Axes {
		if a.Key == key {
			return a, true
		}
	}
	return Axis{}, false
}

func (v *validator) axisKeys() string {
	keys := make([]string, 0, len(v.s.Axes))
	for _, a := range v.s.Axes {
		keys = append(keys, a.Key)
	}
	if len(keys) == 0 {
		return "none; add [[axis]] tables"
	}
	return strings.Join(keys, ", ")
}

func (v *validator) analysis() {
	an := &v.s.Analysis
	if an.Unit == "" {
		an.Unit = defaultUnit
	}
	// A spec without axes runs whole benchmark functions; its analysis
	// keys then name sub-benchmark levels of their results, each benchmark
	// analysed along its own values.
	levelsOnly := len(v.s.Axes) == 0
	if an.Axis != "" && !levelsOnly {
		if a, ok := v.axis(an.Axis); !ok {
			v.at("analysis.axis", "analysis axis %q is not an axis of this spec; axes: %s", an.Axis, v.axisKeys())
		} else {
			for _, val := range append(slices.Clone(a.Quick), a.Full...) {
				if _, err := strconv.ParseFloat(val, 64); err != nil {
					v.at("analysis.axis", "analysis axis %q must be numeric, but it has the value %q; pick a numeric axis for knees and crossovers", an.Axis, val)
					break
				}
			}
		}
	}
	if an.By != "" {
		a, ok := v.axis(an.By)
		switch {
		case levelsOnly && an.By == an.Axis:
			v.at("analysis.by", "analysis by %q must differ from analysis axis: one axis is swept, the other compared", an.By)
		case levelsOnly && an.Baseline != "":
			v.at("analysis.baseline", "analysis baseline %q needs [[axis]] entries; without axes the levels are not known in advance", an.Baseline)
		case levelsOnly:
		case !ok:
			v.at("analysis.by", "analysis by %q is not an axis of this spec; axes: %s", an.By, v.axisKeys())
		case an.By == an.Axis:
			v.at("analysis.by", "analysis by %q must differ from analysis axis: one axis is swept, the other compared", an.By)
		case an.Baseline != "":
			if !slices.Contains(a.Quick, an.Baseline) || !slices.Contains(a.Full, an.Baseline) {
				v.at("analysis.baseline", "analysis baseline %q is not a value of axis %q in both modes; its values: %s", an.Baseline, an.By, strings.Join(a.Full, ", "))
			}
		}
	} else if an.Baseline != "" {
		v.at("analysis.baseline", "analysis baseline %q needs analysis by, the axis it is a value of", an.Baseline)
	}
}

func (v *validator) claims(raw []Claim) {
	first := map[string]int{}
	for i, c := range raw {
		p := fmt.Sprintf("claim[%d]", i)
		c.Line = v.idx.line(p)
		switch {
		case c.ID == "":
			v.at(p, `claim %d has no id; add id = "..." (letters, digits, '_', '.' and '-')`, i+1)
		case !claimIDRE.MatchString(c.ID):
			v.at(p+".id", "claim id %q may use only letters, digits, '_', '.' and '-'", c.ID)
		default:
			if l, dup := first[c.ID]; dup {
				v.at(p+".id", "duplicate claim id %q (first defined at line %d); give each claim its own id", c.ID, l)
			} else {
				first[c.ID] = v.idx.line(p + ".id")
			}
		}
		if strings.TrimSpace(c.Text) == "" {
			v.at(p, "claim %q has no text; add text = \"...\" quoting the claim as published", c.ID)
		}
		switch {
		case c.NotTestable != "" && len(c.Checks) > 0:
			v.at(p+".not_testable", "claim %q is marked not_testable but has checks; remove one or the other", c.ID)
		case c.NotTestable == "" && len(c.Checks) == 0:
			v.at(p, "claim %q has no [[claim.check]]; add a check, or not_testable = \"why\"", c.ID)
		}
		v.notTested(p, c)
		c.Checks = slices.Clone(c.Checks)
		for j := range c.Checks {
			v.check(fmt.Sprintf("%s.check[%d]", p, j), fmt.Sprintf("claim %q check %d", c.ID, j+1), &c.Checks[j])
		}
		v.s.Claims = append(v.s.Claims, c)
	}
}

func (v *validator) check(p, what string, ck *Check) {
	ck.Line = v.idx.line(p)
	if ck.Unit == "" {
		ck.Unit = defaultUnit
	}
	where := v.selector(p+".where", what+" where", ck.Where)
	type field struct {
		key string
		set bool
	}
	ratioFields := []field{{"num", ck.Num != ""}, {"den", ck.Den != ""}, {"op", ck.Op != ""}, {"value", ck.Value != 0}}
	crossFields := []field{{"a", ck.A != ""}, {"b", ck.B != ""}, {"axis", ck.Axis != ""}, {"min", ck.Min != 0}, {"max", ck.Max != 0}}
	foreign := func(fields []field, kind string) {
		for _, f := range fields {
			if f.set || v.idx.has(p+"."+f.key) {
				v.at(p+"."+f.key, "%s: %s is for %s checks; remove it", what, f.key, kind)
			}
		}
	}
	switch {
	case ck.Precondition != "" && ck.Context:
		v.at(p+".precondition", "%s: a precondition is shown as context when it holds; remove context = true", what)
	case ck.Precondition != "" && ck.Kind == "profile":
		v.at(p+".precondition", "%s: a profile check reads one profiling pass and cannot decide a precondition; use a value or ratio check", what)
	case ck.Precondition == "" && v.idx.has(p+".precondition"):
		v.at(p+".precondition", "%s: precondition needs the situation in words, e.g. \"the unguarded service overloads\"", what)
	}
	if ck.Kind != "crossover" && (ck.WinsAbove != "" || v.idx.has(p+".wins_above")) {
		v.at(p+".wins_above", "%s: wins_above is for crossover checks; remove it", what)
	}
	if ck.Kind != "knee" && (ck.Bend != "" || v.idx.has(p+".bend")) {
		v.at(p+".bend", "%s: bend is for knee checks; remove it", what)
	}
	switch ck.Kind {
	case "ratio":
		foreign(crossFields, "crossover")
		for _, side := range []struct{ key, sel string }{{"num", ck.Num}, {"den", ck.Den}} {
			if side.sel == "" {
				v.at(p, "%s: a ratio check needs %s, a selector such as \"variant=pool\"", what, side.key)
				continue
			}
			v.overlap(p+"."+side.key, what, side.key, where, v.selector(p+"."+side.key, what+" "+side.key, side.sel))
		}
		v.ratioThreshold(p, what, ck)
	case "crossover":
		foreign(ratioFields, "ratio")
		v.winsAbove(p, what, ck)
		for _, side := range []struct{ key, sel string }{{"a", ck.A}, {"b", ck.B}} {
			if side.sel == "" {
				v.at(p, "%s: a crossover check needs %s, a selector of one series such as \"variant=pool\"", what, side.key)
				continue
			}
			pairs := v.selector(p+"."+side.key, what+" "+side.key, side.sel)
			v.overlap(p+"."+side.key, what, side.key, where, pairs)
			for _, kv := range pairs {
				if ck.Axis != "" && kv[0] == ck.Axis {
					v.at(p+"."+side.key, "%s: %s selects on %q, the axis the series cross along; remove it", what, side.key, ck.Axis)
				}
			}
		}
		if ck.Axis == "" {
			v.at(p, "%s: a crossover check needs axis, the axis key the series cross along; axes: %s", what, v.axisKeys())
		} else if _, ok := v.axis(ck.Axis); !ok {
			v.at(p+".axis", "%s: axis %q is not an axis of this spec; axes: %s", what, ck.Axis, v.axisKeys())
		}
		if !v.idx.has(p+".min") || !v.idx.has(p+".max") {
			v.at(p, "%s: a crossover check needs min and max, the range of axis values where the crossing is expected", what)
		} else if !(ck.Min <= ck.Max) {
			v.at(p+".min", "%s: min %v is greater than max %v", what, ck.Min, ck.Max)
		}
	case "value":
		v.valueCheck(p, what, ck, where)
		v.noEffect(p, what, "value", ck)
	case "knee":
		v.kneeCheck(p, what, ck, where)
	case "profile":
		v.profileCheck(p, what, ck, where)
		v.noEffect(p, what, "profile", ck)
	case "correlation":
		v.correlationCheck(p, what, ck, where)
	case "contrast":
		v.contrastCheck(p, what, ck, where)
	case "":
		v.at(p, "%s has no kind; add kind = %s", what, kindList)
	default:
		v.at(p+".kind", "%s: unknown kind %q; use %s", what, ck.Kind, kindList)
	}
}

// selector parses the selector sel written at path, reporting errors.
func (v *validator) selector(path, what, sel string) [][2]string {
	pairs, err := ParseSelector(sel)
	if err != nil {
		v.at(path, "%s: bad selector: %v", what, err)
	}
	return pairs
}

// overlap reports keys that a side selector shares with the where selector.
func (v *validator) overlap(path, what, side string, where, pairs [][2]string) {
	for _, kv := range pairs {
		for _, w := range where {
			if kv[0] == w[0] {
				v.at(path, "%s: key %q is in both where and %s; keep it in one of them", what, kv[0], side)
			}
		}
	}
}

// ratioThreshold checks how a ratio check states its threshold: op and
// value, effect alone (the log-midpoint √effect), effect with an explicit
// value and why, or op "~" with an equivalence band.
func (v *validator) ratioThreshold(p, what string, ck *Check) {
	if ck.Effect < 0 || v.idx.has(p+".effect") && !(ck.Effect > 0) {
		v.at(p+".effect", "%s: effect must be > 0, the claimed ratio num/den", what)
	}
	switch ck.Op {
	case "~":
		if !(ck.Band > 0 && ck.Band < 1) {
			v.at(p, "%s: op \"~\" (about the same) needs band, e.g. band = 0.10 for ±10%%", what)
		}
		if ck.Value != 0 || v.idx.has(p+".value") {
			v.at(p+".value", "%s: op \"~\" tests an equivalence band; remove value", what)
		}
		return
	case "<", ">", "":
	default:
		v.at(p+".op", "%s: op %q must be \"<\", \">\" or \"~\"", what, ck.Op)
		return
	}
	if ck.Band != 0 {
		v.at(p+".band", "%s: band is for op \"~\"; remove it", what)
	}
	if ck.Effect > 0 {
		want := ">"
		if ck.Effect < 1 {
			want = "<"
		}
		if ck.Op != "" && ck.Op != want {
			v.at(p+".op", "%s: effect %g claims num/den %s 1, but op is %q; remove op (it follows from effect)", what, ck.Effect, want, ck.Op)
		}
		if ck.Effect == 1 {
			v.at(p+".effect", "%s: effect = 1 claims no change; use op = \"~\" with a band", what)
		}
		if v.idx.has(p+".value") && ck.Why == "" {
			v.at(p+".value", "%s: an explicit value beside effect needs why, the reason for not testing the log-midpoint √%g", what, ck.Effect)
		}
		if ck.Value < 0 || v.idx.has(p+".value") && !(ck.Value > 0) {
			v.at(p+".value", "%s: value must be > 0, the threshold for num/den", what)
		}
		return
	}
	if ck.Op == "" {
		v.at(p, "%s: a ratio check needs op = \"<\" or \">\" with value, or effect = F (the claimed num/den; threshold √F)", what)
	}
	if !(ck.Value > 0) {
		v.at(p+".value", "%s: a ratio check needs value > 0, the threshold for num/den (or effect, the claimed ratio)", what)
	}
}

// notTested checks a claim's not_tested entries: each names an untested
// part of a claim that has checks and says why, as "<part>: <reason>".
func (v *validator) notTested(p string, c Claim) {
	if len(c.NotTested) > 0 && c.NotTestable != "" {
		v.at(p+".not_tested", "claim %q is not testable as a whole: its not_testable says why; remove not_tested", c.ID)
	}
	seen := map[string]bool{}
	for i, e := range c.NotTested {
		part, why, ok := strings.Cut(e, ": ")
		switch {
		case !ok || strings.TrimSpace(part) == "" || strings.TrimSpace(why) == "":
			v.at(p+".not_tested", "claim %q: not_tested entry %d %q must read \"<part of the claim>: <why it is not tested here>\"", c.ID, i+1, e)
		case seen[part]:
			v.at(p+".not_tested", "claim %q: not_tested names %q twice", c.ID, part)
		case strings.ContainsAny(e, "\n\t"):
			v.at(p+".not_tested", "claim %q: not_tested entry %d must be one line", c.ID, i+1)
		}
		seen[part] = true
	}
}

// winsAbove checks a crossover's wins_above, "a" or "b", and records the
// direction of its unit: a unit the spec declares better = "higher" (or go
// test's MB/s) is better higher, any other better lower.
func (v *validator) winsAbove(p, what string, ck *Check) {
	switch ck.WinsAbove {
	case "a", "b":
	case "":
		v.at(p, "%s: a crossover check needs wins_above = \"a\" or \"b\", the series that is better above the crossing (at higher %s values)", what, ck.Axis)
	default:
		v.at(p+".wins_above", "%s: wins_above %q must be \"a\" or \"b\", the series that is better above the crossing", what, ck.WinsAbove)
	}
	ck.HigherIsBetter = ck.Unit == "MB/s"
	for _, u := range v.s.Units {
		if u.Name == ck.Unit {
			ck.HigherIsBetter = u.Better == "higher"
		}
	}
}
