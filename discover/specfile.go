package discover

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// SpecInput describes the experiment a spec file should hold.
type SpecInput struct {
	Name      string
	Title     string // optional one-line title
	Package   string // relative to the spec file's directory
	Benches   []Bench
	Configs   []Config
	Rounds    int
	Benchtime string
	CPU       []int
	Axis      string // analysis axis, "" for none
	By        string // the key whose values are compared, "" for none
	Baseline  string // the value of By the others are divided by; "" for its first value
}

// Config is a named set of environment settings (KEY=VALUE).
type Config struct {
	Name string
	Env  []string // GOEXPERIMENT=…, GOGC=…, …
}

// envKeys maps environment variables to spec config fields.
var envKeys = map[string]string{
	"GOEXPERIMENT": "goexperiment", "GOTOOLCHAIN": "gotoolchain", "GOMAXPROCS": "gomaxprocs",
	"GOGC": "gogc", "GOMEMLIMIT": "gomemlimit", "GODEBUG": "godebug",
	"PGO": "pgo", // the build flag -pgo: off, auto or a profile file
	// The build flag -ldflags, which ab sets on both sides to pin the
	// function alignment (ab.Options.FuncAlign).
	"LDFLAGS": "ldflags",
}

// SpecText writes a spec for the benchmarks. When they form a full sweep of
// key=value levels, the levels become axes; otherwise the spec selects whole
// benchmark functions (each run prints all of its sub-benchmarks), a
// comment says why, and an analysis axis names a level key along which each
// benchmark is analysed separately (see AxisGroups).
func SpecText(in SpecInput) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by perflab from the benchmarks of package %s.\n", in.Package)
	fmt.Fprintf(&b, "name = %s\n", quote(in.Name))
	if in.Title != "" {
		fmt.Fprintf(&b, "title = %s\n", quote(in.Title))
	}
	fmt.Fprintf(&b, "driver = \"gotest\"\npackage = %s\nbenchmarks = [%s]\n", quote(in.Package), quoteList(Funcs(in.Benches)))
	axes, axesErr := SpecAxes(in.Benches)
	if axesErr != nil {
		fmt.Fprintf(&b, "# No axes: %s.\n", axesErr)
		axes = nil
	}
	for _, a := range axes {
		vals := make([]string, len(a.Values))
		bare := a.Numeric()
		for _, v := range a.Values {
			bare = bare && tomlNumber(v)
		}
		for i, v := range a.Values {
			if bare {
				vals[i] = v
			} else {
				vals[i] = quote(v)
			}
		}
		fmt.Fprintf(&b, "\n[[axis]]\nkey = %s\nquick = [%s]\n", quote(a.Key), strings.Join(vals, ", "))
	}
	rounds := max(in.Rounds, 6)
	for _, mode := range []string{"quick", "full"} {
		fmt.Fprintf(&b, "\n[mode.%s]\nrounds = %d\n", mode, rounds)
		if in.Benchtime != "" {
			fmt.Fprintf(&b, "benchtime = %s\n", quote(in.Benchtime))
		}
		if len(in.CPU) > 0 {
			fmt.Fprintf(&b, "cpu = [%s]\n", joinInts(in.CPU))
		}
	}
	configs := in.Configs
	if len(configs) == 0 {
		configs = []Config{{Name: "default"}}
	}
	for _, c := range configs {
		fmt.Fprintf(&b, "\n[[config]]\nname = %s\n", quote(c.Name))
		for _, kv := range c.Env {
			k, v, _ := strings.Cut(kv, "=")
			field, ok := envKeys[k]
			if !ok {
				return "", fmt.Errorf("config %s: %s is not a setting perflab knows (use one of GOEXPERIMENT, GOTOOLCHAIN, GOMAXPROCS, GOGC, GOMEMLIMIT, GODEBUG, PGO)", c.Name, k)
			}
			fmt.Fprintf(&b, "%s = %s\n", field, quote(v))
		}
	}
	hasAxis := func(key string) bool {
		for _, a := range axes {
			if a.Key == key {
				return true
			}
		}
		return false
	}
	if in.Axis != "" && axes == nil {
		fmt.Fprintf(&b, "\n# Each benchmark is analysed along its own %s values.\n", in.Axis)
	}
	// Without axes, analysis keys name the results' levels; with axes they
	// must be axes.
	by := in.By != "" && (axes == nil || hasAxis(in.By))
	if in.Axis != "" || by {
		b.WriteString("\n[analysis]\n")
		if in.Axis != "" {
			fmt.Fprintf(&b, "axis = %s\n", quote(in.Axis))
		}
		if by {
			fmt.Fprintf(&b, "by = %s\n", quote(in.By))
			if in.Baseline != "" && axes != nil {
				fmt.Fprintf(&b, "baseline = %s\n", quote(in.Baseline))
			}
		}
	}
	return b.String(), nil
}

// SpecAxes returns the axes a spec of the benchmarks has: their [Axes],
// when a spec can hold every key and value; otherwise it says why the
// spec selects whole benchmark functions instead.
func SpecAxes(benches []Bench) ([]Axis, error) {
	axes, err := Axes(benches)
	if err != nil {
		return nil, err
	}
	for _, a := range axes {
		if err := validValues(a); err != nil {
			return nil, err
		}
	}
	return axes, nil
}

// validValues rejects an axis whose key or values a spec cannot hold: a
// key holds only letters, digits and '_'; a value is not empty and holds
// no space, unprintable character, '/', ',', '=', '"' or '\\'.
func validValues(a Axis) error {
	if !axisKey.MatchString(a.Key) {
		return fmt.Errorf("the sub-benchmark key %q is not letters, digits and '_', which a spec's axis needs", a.Key)
	}
	for _, v := range a.Values {
		if v == "" || strings.ContainsFunc(v, func(r rune) bool {
			return unicode.IsSpace(r) || !unicode.IsPrint(r) || strings.ContainsRune("/,=\"\\", r)
		}) {
			return fmt.Errorf("axis %s has the value %q, which a spec cannot select by name", a.Key, v)
		}
	}
	return nil
}

var (
	axisKey = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	// tomlInt and tomlFloat are the numbers a spec reads back as the same
	// text when written bare: no sign but '-', no leading zeros, no
	// leading or trailing '.', no "inf" or "nan".
	tomlInt   = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	tomlFloat = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)
)

// tomlNumber reports whether v, written bare in a spec, reads back as v.
func tomlNumber(v string) bool {
	if tomlInt.MatchString(v) {
		n, err := strconv.ParseInt(v, 10, 64)
		return err == nil && strconv.FormatInt(n, 10) == v
	}
	return tomlFloat.MatchString(v)
}

func quote(s string) string { return strconv.Quote(s) }

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = quote(x)
	}
	return strings.Join(q, ", ")
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// ParseConfig parses a --config value: NAME:KEY=VALUE,KEY=VALUE…, e.g.
// "gogc-off:GOGC=off" or "arena:GOEXPERIMENT=arenas,GOMAXPROCS=2". A name
// alone ("base") is a config with the default environment. GODEBUG values
// hold commas themselves, so a GODEBUG setting must come last and takes the
// rest of the line.
func ParseConfig(s string) (Config, error) {
	name, rest, _ := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, " \t=,\"") {
		return Config{}, fmt.Errorf("--config %q: want NAME:KEY=VALUE,… with a NAME of letters, digits, '-' or '_'", s)
	}
	for _, r := range name {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return Config{}, fmt.Errorf("--config %q: name %q may hold only letters, digits, '-' and '_'", s, name)
		}
	}
	c := Config{Name: name}
	for rest != "" {
		var item string
		if strings.HasPrefix(rest, "GODEBUG=") {
			item, rest = rest, ""
		} else {
			item, rest, _ = strings.Cut(rest, ",")
		}
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return Config{}, fmt.Errorf("--config %q: %q is not KEY=VALUE", s, item)
		}
		if _, known := envKeys[k]; !known {
			return Config{}, fmt.Errorf("--config %q: %s is not a setting perflab knows (use GOEXPERIMENT, GOTOOLCHAIN, GOMAXPROCS, GOGC, GOMEMLIMIT, GODEBUG or PGO=off|auto|FILE)", s, k)
		}
		c.Env = append(c.Env, k+"="+v)
	}
	return c, nil
}
