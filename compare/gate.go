package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/perf/benchunit"
)

// Threshold is one gate rule, written "UNIT>+N%" or "UNIT<-N%": a change
// of UNIT fails the gate when it is significant and its whole confidence
// interval lies above +N% (">") or below −N% ("<").
type Threshold struct {
	Unit  string  // tidied as benchfmt does: "ns/op" becomes "sec/op"
	Op    byte    // '>' or '<'
	Limit float64 // relative: 0.05 for 5%
	Pct   float64 // the limit in percent, as written
	Text  string  // the rule as written
}

// String returns the rule in its canonical form, e.g. "sec/op>+5%".
func (t Threshold) String() string {
	return t.Unit + string(t.Op) + strconv.FormatFloat(t.Pct, 'f', -1, 64) + "%"
}

// ParseThresholds reads a comma-separated list of rules such as
// "sec/op>+5%,B/op>+10%,req/s<-5%". A ">" rule needs a limit of at least
// 0% and a "<" rule one of at most 0% and above −100%; the percent sign is
// required, so "5" is not silently read as 500%.
func ParseThresholds(s string) ([]Threshold, error) {
	var out []Threshold
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		t, err := parseThreshold(part)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, errors.New(`no threshold given: write rules such as "sec/op>+5%" or "sec/op>+5%,B/op>+10%"`)
	}
	return out, nil
}

func parseThreshold(s string) (Threshold, error) {
	bad := func(why string) (Threshold, error) {
		return Threshold{}, fmt.Errorf("threshold %q: %s (write e.g. \"sec/op>+5%%\" or \"req/s<-5%%\")", s, why)
	}
	i := strings.IndexAny(s, "<>")
	if i < 0 {
		return bad("no '>' or '<'")
	}
	unit := strings.TrimSpace(s[:i])
	if unit == "" {
		return bad("no unit before the comparison")
	}
	if strings.IndexFunc(unit, func(r rune) bool { return unicode.IsSpace(r) || r == '<' || r == '>' || !unicode.IsPrint(r) }) >= 0 {
		return bad("the unit contains a space or an unprintable character")
	}
	op := s[i]
	rest := strings.TrimSpace(s[i+1:])
	if strings.HasPrefix(rest, "=") {
		return bad("only '>' and '<' are supported")
	}
	num, ok := strings.CutSuffix(rest, "%")
	if !ok {
		return bad("the limit must end in '%'")
	}
	num = strings.TrimSpace(num)
	if num == "" || strings.ContainsAny(num, "xXpP_") || strings.Contains(strings.ToLower(num), "inf") || strings.Contains(strings.ToLower(num), "nan") {
		return bad("the limit is not a plain number")
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return bad("the limit is not a plain number")
	}
	limit := v / 100
	switch {
	case op == '>' && limit < 0:
		return bad("a '>' rule fails on slow-downs, so its limit must be 0% or more")
	case op == '<' && limit > 0:
		return bad("a '<' rule fails on drops, so its limit must be 0% or less")
	case op == '<' && limit <= -1:
		return bad("a value cannot drop by 100% or more")
	case limit > 1e6:
		return bad("the limit is too large")
	}
	_, tidy := benchunit.Tidy(1, unit)
	return Threshold{Unit: tidy, Op: op, Limit: limit, Pct: v, Text: s}, nil
}

// Failure is a row that breaks a threshold.
type Failure struct {
	Row       Row
	Threshold Threshold
}

// Check applies the thresholds to the comparison. A row fails a rule of
// its unit when its change is a discovery and its confidence interval lies
// wholly beyond the limit. Discoveries are the rows whose U-test p-values
// pass the Benjamini–Hochberg procedure at α over all rows of the unit:
// comparing hundreds of benchmarks then does not fail a build on the few
// that differ by chance (an A/A comparison), while a change that shows in
// many rows, or strongly in a few, still does. unmatched lists the rules
// whose unit no compared benchmark reports, usually a typo.
func (r *Result) Check(ths []Threshold) (fails []Failure, unmatched []Threshold) {
	alpha := r.Opt.Alpha
	if !(alpha > 0 && alpha < 1) {
		alpha = 0.05
	}
	for _, t := range ths {
		var rows []Row
		for _, row := range r.Rows {
			if row.Unit == t.Unit {
				rows = append(rows, row)
			}
		}
		if len(rows) == 0 {
			unmatched = append(unmatched, t)
			continue
		}
		cut := bhCutoff(rows, alpha)
		for _, row := range rows {
			if row.P <= cut && Breaks(row, t) {
				fails = append(fails, Failure{Row: row, Threshold: t})
			}
		}
	}
	return fails, unmatched
}

// bhCutoff is the Benjamini–Hochberg p-value cutoff at false discovery rate
// alpha: the largest p_(k) with p_(k) ≤ k·alpha/m. It is −1 when no row is
// a discovery.
func bhCutoff(rows []Row, alpha float64) float64 {
	ps := make([]float64, 0, len(rows))
	for _, r := range rows {
		if !math.IsNaN(r.P) {
			ps = append(ps, r.P)
		}
	}
	slices.Sort(ps)
	cut := -1.0
	for k, p := range ps {
		if p <= float64(k+1)*alpha/float64(len(ps)) {
			cut = p
		}
	}
	return cut
}

// Breaks reports whether one row breaks one rule.
func Breaks(row Row, t Threshold) bool {
	if row.Unit != t.Unit || !row.Signif || row.NoCI {
		return false
	}
	if t.Op == '>' {
		return row.DeltaLo > t.Limit
	}
	return row.DeltaHi < t.Limit
}
