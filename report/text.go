package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
)

// ClaimsTable writes the verdicts as an aligned text table for terminals.
func ClaimsTable(w io.Writer, in *Input) error {
	if len(in.Verdicts) == 0 {
		_, err := fmt.Fprintln(w, "(no claims)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLAIM\tVERDICT\tMEASURED")
	for _, v := range in.Verdicts {
		m := v.Measured
		if m == "" {
			m = v.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.ID, v.Verdict, truncate(m, 110))
		for _, c := range v.Checks {
			tag := ""
			if c.Context {
				tag = " (context)"
			}
			fmt.Fprintf(tw, "\t  %s%s\t  tested: %s\n", c.Verdict, tag, truncate(c.Predicate, 140))
		}
	}
	return tw.Flush()
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Export writes the run as benchfmt text: the environment as file
// configuration keys, unit metadata, then every result with its config. The
// output is what benchstat reads; each perflab config becomes a benchstat
// table through the "config" key.
func Export(w io.Writer, in *Input) error {
	bw := benchfmt.NewWriter(w)
	meta := map[string]bool{}
	for _, m := range in.UnitMeta {
		if meta[m.Unit+"\x00"+m.Key] || !hasUnit(in.Samples, m.Unit) {
			continue
		}
		meta[m.Unit+"\x00"+m.Key] = true
		if err := bw.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: m.Unit, Key: m.Key}, OrigUnit: m.Unit, Value: m.Value}); err != nil {
			return fmt.Errorf("writing unit metadata: %w", err)
		}
	}
	for _, r := range in.Results {
		have := map[string]bool{}
		for _, c := range r.Config {
			have[c.Key] = true
		}
		var cfg []benchfmt.Config
		for _, kv := range in.Env {
			if have[kv.Key] || strings.HasPrefix(kv.Key, "noise") || kv.Key == "time" || kv.Key == "loadavg" {
				continue // run-to-run differences stay out of benchstat's table keys
			}
			cfg = append(cfg, benchfmt.Config{Key: kv.Key, Value: []byte(kv.Value), File: true})
		}
		// A fresh Result: benchfmt indexes Config lazily, so it must not be
		// edited in place after a lookup.
		c := r.Clone()
		for _, kv := range c.Config {
			if kv.File { // internal keys (the round) are perflab's own
				cfg = append(cfg, kv)
			}
		}
		out := &benchfmt.Result{Config: cfg, Name: c.Name, Iters: c.Iters, Values: c.Values}
		if err := bw.Write(out); err != nil {
			return fmt.Errorf("writing %s: %w", r.Name.Full(), err)
		}
	}
	return nil
}

func hasUnit(samples []*analysis.Sample, unit string) bool {
	for _, s := range samples {
		if s.Unit == unit {
			return true
		}
	}
	return false
}
