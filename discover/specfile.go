package discover

import (
	"fmt"
	"strconv"
	"strings"
)

// SpecInput describes the experiment a spec file should hold.
type SpecInput struct {
	Name      string
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
}

// SpecText writes a spec for the benchmarks. When they form a full sweep of
// key=value levels, the levels become axes; otherwise the spec selects whole
// benchmark functions (each run prints all of its sub-benchmarks), a
// comment says why, and an analysis axis names a level key along which each
// benchmark is analysed separately (see AxisGroups).
func SpecText(in SpecInput) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by perflab from the benchmarks of package %s.\n", in.Package)
	fmt.Fprintf(&b, "name = %s\ndriver = \"gotest\"\npackage = %s\nbenchmarks = [%s]\n", quote(in.Name), quote(in.Package), quoteList(Funcs(in.Benches)))
	axes, axesErr := Axes(in.Benches)
	if axesErr == nil {
		for _, a := range axes {
			if err := validValues(a); err != nil {
				axesErr = err
				break
			}
		}
	}
	if axesErr != nil {
		fmt.Fprintf(&b, "# No axes: %s.\n", axesErr)
		axes = nil
	}
	for _, a := range axes {
		vals := make([]string, len(a.Values))
		for i, v := range a.Values {
			if a.Numeric() {
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
				return "", fmt.Errorf("config %s: %s is not a setting perflab knows (use one of GOEXPERIMENT, GOTOOLCHAIN, GOMAXPROCS, GOGC, GOMEMLIMIT, GODEBUG)", c.Name, k)
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

// validValues rejects values a spec cannot hold.
func validValues(a Axis) error {
	for _, v := range a.Values {
		if v == "" || strings.ContainsAny(v, " /,=\"\\") {
			return fmt.Errorf("axis %s has the value %q, which a spec cannot select by name", a.Key, v)
		}
	}
	return nil
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
			return Config{}, fmt.Errorf("--config %q: %s is not a setting perflab knows (use GOEXPERIMENT, GOTOOLCHAIN, GOMAXPROCS, GOGC, GOMEMLIMIT or GODEBUG)", s, k)
		}
		c.Env = append(c.Env, k+"="+v)
	}
	return c, nil
}
