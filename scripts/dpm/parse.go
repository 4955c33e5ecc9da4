package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// A row is one benchmark's time comparison as a tool reported it.
type row struct {
	Name    string `json:"name"`    // benchmark name without the -GOMAXPROCS suffix
	Verdict string `json:"verdict"` // faster, slower, no difference or undecided
	// Ratio is new/old with its interval [Lo, Hi]; nil where the tool
	// gave none (benchstat gives no interval of the ratio).
	Ratio *float64 `json:"ratio"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
	// HalfWidth is half the interval's width on the log scale,
	// (log Hi − log Lo)/2, as perflab prints it (±X%); nil without one.
	HalfWidth *float64 `json:"half_width"`
	// N is the observations behind the ratio: perflab's clusters (or
	// rounds), benchstat's samples per side.
	N int      `json:"n"`
	P *float64 `json:"p,omitempty"`
	// LeftOut marks a row perflab left out for the budget.
	LeftOut bool `json:"left_out,omitempty"`
	// Truth is the change of the benchmark's instructions/op, from the
	// manifest, set when the trial is recorded.
	Truth float64 `json:"truth"`
}

// The verdicts.
const (
	faster       = "faster"
	slower       = "slower"
	noDifference = "no difference"
	undecided    = "undecided"
)

// decided reports whether a verdict is a decision.
func decided(v string) bool { return v == faster || v == slower || v == noDifference }

// procSuffix is the -GOMAXPROCS suffix of a benchmark name.
var procSuffix = regexp.MustCompile(`-\d+$`)

func benchName(s string) string { return procSuffix.ReplaceAllString(s, "") }

// abOutput is what dpm reads of perflab ab --json.
type abOutput struct {
	Rows   []row
	Rounds int    // rounds run (0 when the output does not say)
	Gate   string // the gate's outcome in one word, "" when absent
	Fails  int    // rows beyond a gate limit
}

// parseAB reads perflab ab --json output. It is keyed on field names and
// tolerant of their place: the rows are the objects of the top-level
// "rows" array (or, failing that, any array of objects with a "name" and
// a "verdict"); of each it reads the name, the unit (only sec/op rows are
// kept), the verdict, and the ratio with its interval from an object
// "ratio" {ratio, lo, hi, rounds} or from fields beside the verdict.
func parseAB(data []byte) (*abOutput, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("perflab ab --json: %w", err)
	}
	var items []any
	if rows, ok := top["rows"].([]any); ok {
		items = rows
	} else {
		items = findRows(top, 0)
	}
	if items == nil {
		return nil, fmt.Errorf("perflab ab --json: no rows (no array of objects with a name and a verdict)")
	}
	out := &abOutput{}
	for _, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			continue
		}
		name, _ := obj["name"].(string)
		if name == "" {
			continue
		}
		if u, ok := obj["unit"].(string); ok && u != "sec/op" {
			continue
		}
		r := row{Name: benchName(name), Verdict: verdictOf(obj["verdict"])}
		if pkg, _ := obj["package"].(string); pkg != "" && pkg != "." {
			r.Name = pkg + ":" + r.Name
		}
		est := obj
		if m, ok := obj["ratio"].(map[string]any); ok {
			est = m
		}
		r.Ratio = positive(est["ratio"])
		if r.Ratio == nil {
			r.Ratio = positive(est["estimate"])
		}
		r.Lo, r.Hi = positive(est["lo"]), positive(est["hi"])
		if n := number(est["rounds"]); n != nil {
			r.N = int(*n)
		}
		r.P = number(est["p"])
		if p := number(obj["p_adj"]); p != nil {
			r.P = p
		}
		r.HalfWidth = halfWidth(r.Lo, r.Hi)
		r.LeftOut, _ = obj["left_out"].(bool)
		out.Rows = append(out.Rows, r)
	}
	if n := number(top["rounds"]); n != nil {
		out.Rounds = int(*n)
	} else if src, ok := top["source"].(map[string]any); ok {
		if n := number(src["rounds_run"]); n != nil {
			out.Rounds = int(*n)
		}
	}
	out.Gate, _ = top["gate"].(string)
	if fails, ok := top["fails"].([]any); ok {
		out.Fails = len(fails)
	}
	return out, nil
}

// findRows looks, depth first, for an array of objects with a name and a
// verdict.
func findRows(v any, depth int) []any {
	if depth > 8 {
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			if r := findRows(x, depth+1); r != nil {
				return r
			}
		}
	case []any:
		for _, x := range v {
			obj, ok := x.(map[string]any)
			if !ok {
				continue
			}
			if _, ok := obj["name"].(string); ok {
				if _, ok := obj["verdict"]; ok {
					return v
				}
			}
		}
		for _, x := range v {
			if r := findRows(x, depth+1); r != nil {
				return r
			}
		}
	}
	return nil
}

// verdictOf reads a verdict: a string, or an object with one under
// "verdict" or "word"; anything else is undecided.
func verdictOf(v any) string {
	switch v := v.(type) {
	case string:
		s := strings.ToLower(strings.TrimSpace(v))
		switch {
		case strings.HasPrefix(s, faster):
			return faster
		case strings.HasPrefix(s, slower):
			return slower
		case strings.HasPrefix(s, noDifference), s == "same", s == "equal":
			return noDifference
		}
	case map[string]any:
		for _, k := range []string{"verdict", "word"} {
			if x, ok := v[k]; ok {
				return verdictOf(x)
			}
		}
	}
	return undecided
}

// number reads a finite JSON number; nil for anything else.
func number(v any) *float64 {
	var f float64
	switch v := v.(type) {
	case json.Number:
		x, err := v.Float64()
		if err != nil {
			return nil
		}
		f = x
	case float64:
		f = v
	default:
		return nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// positive reads a finite, positive JSON number.
func positive(v any) *float64 {
	f := number(v)
	if f == nil || *f <= 0 {
		return nil
	}
	return f
}

func halfWidth(lo, hi *float64) *float64 {
	if lo == nil || hi == nil || *hi < *lo {
		return nil
	}
	h := (math.Log(*hi) - math.Log(*lo)) / 2
	return &h
}

// refusal matches the line in which perflab ab refuses a budget too small
// for its plan ("… raise --budget …"): it ends at once, with no JSON.
var refusal = regexp.MustCompile(`(?m)^perflab ab: (.*\bbudget\b.*)$`)

// refused returns the reason perflab gave for refusing the budget, from
// its standard error; "" when it gave none.
func refused(stderr []byte) string {
	m := refusal.FindAllSubmatch(stderr, -1)
	if len(m) == 0 {
		return ""
	}
	return string(m[len(m)-1][1])
}

// benchstatAlpha is the level benchstat calls a change significant at
// (its default).
const benchstatAlpha = 0.05

// pCell is benchstat's P column: "p=0.041 n=6" or "p=0.057 n=4+3".
var pCell = regexp.MustCompile(`^p=([0-9.eE+-]+)\s+n=(\d+)(?:\+(\d+))?$`)

// parseBenchstat reads the sec/op table of benchstat -format csv output
// comparing two files: for each benchmark, the change in "vs base" and
// the P cell. A change benchstat marks "~" (p ≥ α) is undecided; a
// significant one is slower or faster by its sign. Other tables (B/op,
// allocs/op) and the geomean are skipped.
func parseBenchstat(data []byte) ([]row, error) {
	var rows []row
	found := false
	for _, block := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n\n") {
		r := csv.NewReader(strings.NewReader(block))
		r.FieldsPerRecord = -1
		r.LazyQuotes = true
		var recs [][]string
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("benchstat csv: %w", err)
			}
			recs = append(recs, rec)
		}
		// The table's header: a record whose first cell is empty, a unit
		// in the second, and "vs base" and "P" further on.
		head := -1
		for i, rec := range recs {
			if len(rec) >= 3 && rec[0] == "" && indexOf(rec, "vs base") > 0 {
				head = i
				break
			}
		}
		if head < 0 || len(recs[head]) < 2 || recs[head][1] != "sec/op" {
			continue
		}
		found = true
		vs, pc := indexOf(recs[head], "vs base"), indexOf(recs[head], "P")
		if pc < 0 {
			return nil, fmt.Errorf("benchstat csv: a sec/op table with no P column: %q", recs[head])
		}
		for _, rec := range recs[head+1:] {
			if len(rec) == 0 || rec[0] == "" || rec[0] == "geomean" || len(rec) <= max(vs, pc) {
				continue
			}
			// benchstat drops the Benchmark prefix of the names.
			x := row{Name: "Benchmark" + strings.TrimPrefix(benchName(rec[0]), "Benchmark"), Verdict: undecided}
			if cols := valueColumns(recs[head]); len(cols) == 2 && cols[1] < len(rec) {
				old, err1 := strconv.ParseFloat(rec[cols[0]], 64)
				nw, err2 := strconv.ParseFloat(rec[cols[1]], 64)
				if err1 == nil && err2 == nil && old > 0 && nw > 0 && !math.IsInf(old, 0) && !math.IsInf(nw, 0) {
					ratio := nw / old
					x.Ratio = &ratio
				}
			}
			m := pCell.FindStringSubmatch(strings.TrimSpace(rec[pc]))
			if m == nil {
				return nil, fmt.Errorf("benchstat csv: %s: P cell %q is not p=… n=…", rec[0], rec[pc])
			}
			p, err := strconv.ParseFloat(m[1], 64)
			if err != nil || p < 0 || p > 1 {
				return nil, fmt.Errorf("benchstat csv: %s: p-value %q", rec[0], m[1])
			}
			x.P = &p
			x.N, _ = strconv.Atoi(m[2])
			if m[3] != "" {
				if n2, _ := strconv.Atoi(m[3]); n2 < x.N {
					x.N = n2
				}
			}
			if delta := strings.TrimSpace(rec[vs]); delta != "~" && delta != "?" {
				d, err := strconv.ParseFloat(strings.TrimSuffix(delta, "%"), 64)
				if err != nil || !strings.HasSuffix(delta, "%") || math.IsNaN(d) || math.IsInf(d, 0) || d <= -100 {
					return nil, fmt.Errorf("benchstat csv: %s: change %q is not a percentage", rec[0], delta)
				}
				if p < benchstatAlpha {
					switch {
					case d > 0:
						x.Verdict = slower
					case d < 0:
						x.Verdict = faster
					}
				}
			}
			rows = append(rows, x)
		}
	}
	if !found {
		return nil, fmt.Errorf("benchstat csv: no sec/op comparison (two inputs with the same benchmarks?)")
	}
	return rows, nil
}

// valueColumns are the columns of a table's header holding its unit: the
// old and the new medians.
func valueColumns(head []string) []int {
	var cols []int
	for i, x := range head {
		if i > 0 && x == head[1] {
			cols = append(cols, i)
		}
	}
	return cols
}

func indexOf(rec []string, s string) int {
	for i, x := range rec {
		if strings.TrimSpace(x) == s {
			return i
		}
	}
	return -1
}
