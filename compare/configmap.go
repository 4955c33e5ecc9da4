package compare

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/perflab/perflab/analysis"
)

// ParseConfigMap reads --map values "old=new" (repeatable, or
// comma-separated) into an old → new config map.
func ParseConfigMap(specs []string) (map[string]string, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, spec := range specs {
		for _, p := range strings.Split(spec, ",") {
			o, n, ok := strings.Cut(strings.TrimSpace(p), "=")
			o, n = strings.TrimSpace(o), strings.TrimSpace(n)
			if !ok || o == "" || n == "" {
				return nil, fmt.Errorf("config map %q: want OLD=NEW, e.g. default=go126", p)
			}
			if prev, dup := m[o]; dup && prev != n {
				return nil, fmt.Errorf("config map: %s is mapped to both %s and %s", o, prev, n)
			}
			m[o] = n
		}
	}
	return m, nil
}

// pairConfigs returns the config pairing to use: the given map, or, when
// each side has exactly one config and they differ, those two.
func pairConfigs(oorder, norder []key, given map[string]string) map[string]string {
	if given != nil {
		return given
	}
	configs := func(ks []key) []string {
		var out []string
		for _, k := range ks {
			if !slices.Contains(out, k.config) {
				out = append(out, k.config)
			}
		}
		return out
	}
	oc, nc := configs(oorder), configs(norder)
	if len(oc) == 1 && len(nc) == 1 && oc[0] != nc[0] {
		return map[string]string{oc[0]: nc[0]}
	}
	return nil
}

// renameOld re-keys the old side's samples by the config they are compared
// with. Each sample keeps its own Config, which names the old config.
func renameOld(om map[key]*analysis.Sample, order []key, m map[string]string) (map[key]*analysis.Sample, []key) {
	if m == nil {
		return om, order
	}
	out := make(map[key]*analysis.Sample, len(om))
	var ord []key
	for _, k := range order {
		s := om[k]
		if n, ok := m[k.config]; ok {
			k.config = n
		}
		out[k] = s
		ord = append(ord, k)
	}
	return out, ord
}

// Unmatched counts what one side has that the other lacks, for one config.
type Unmatched struct {
	Side       string   `json:"side"` // "old" or "new"
	Config     string   `json:"config"`
	Benchmarks int      `json:"benchmarks"`
	Units      []string `json:"units"`
	Examples   []string `json:"examples"` // up to three names
}

func tallyUnmatched(om map[key]*analysis.Sample, oorder []key, nm map[key]*analysis.Sample, norder []key) []Unmatched {
	var out []Unmatched
	tally := func(side string, order []key, self, other map[key]*analysis.Sample) {
		idx := map[string]int{}
		names := map[string]map[string]bool{}
		for _, k := range order {
			if _, ok := other[k]; ok {
				continue
			}
			cfg := self[k].Config // the side's own config name
			i, ok := idx[cfg]
			if !ok {
				i = len(out)
				idx[cfg] = i
				out = append(out, Unmatched{Side: side, Config: cfg})
				names[cfg] = map[string]bool{}
			}
			u := &out[i]
			if !names[cfg][k.name] {
				names[cfg][k.name] = true
				u.Benchmarks++
				if len(u.Examples) < 3 {
					u.Examples = append(u.Examples, k.name)
				}
			}
			if !slices.Contains(u.Units, k.unit) {
				u.Units = append(u.Units, k.unit)
			}
		}
	}
	tally("old", oorder, om, nm)
	tally("new", norder, nm, om)
	return out
}

// WriteUnmatched prints what was compared with what, and what was in one
// side only as a short table (per side and config) rather than a list of
// every name; with no common benchmark it says how to pair configs.
func (r *Result) WriteUnmatched(w io.Writer) error {
	if len(r.ConfigMap) > 0 {
		var pairs []string
		for o, n := range r.ConfigMap {
			pairs = append(pairs, o+" (old) with "+n+" (new)")
		}
		slices.Sort(pairs)
		fmt.Fprintf(w, "configs compared: %s\n", strings.Join(pairs, ", "))
	}
	if len(r.Unmatched) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nin one side only (not compared, not in the geomeans):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  side\tconfig\tbenchmarks\tunits\te.g.")
	for _, u := range r.Unmatched {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\n", u.Side, orDash(u.Config), u.Benchmarks, strings.Join(u.Units, ", "), strings.Join(u.Examples, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Rows) == 0 {
		var oc, nc []string
		for _, u := range r.Unmatched {
			if u.Side == "old" && !slices.Contains(oc, u.Config) {
				oc = append(oc, u.Config)
			} else if u.Side == "new" && !slices.Contains(nc, u.Config) {
				nc = append(nc, u.Config)
			}
		}
		if len(oc) > 0 && len(nc) > 0 && !slices.ContainsFunc(oc, func(c string) bool { return slices.Contains(nc, c) }) {
			fmt.Fprintf(w, "no config is in both sides (old: %s; new: %s): pair them with --map %s=%s\n",
				strings.Join(oc, ", "), strings.Join(nc, ", "), oc[0], nc[0])
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
