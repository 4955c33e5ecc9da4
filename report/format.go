package report

import (
	"fmt"
	"math"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/unit"
)

// How numbers read in every text output: changes as signed percentages,
// ratios with a × sign, values in their unit's human scale.

// FormatDelta prints a relative change as a signed percentage: "+5.2%",
// "-0.3%", "0%", "+∞"; a change under 0.05% with two significant
// digits ("+0.019%"), so no change but none prints as 0.
func FormatDelta(d float64) string {
	switch {
	case math.IsNaN(d):
		return "?"
	case math.IsInf(d, 1):
		return "+∞"
	case math.IsInf(d, -1):
		return "-∞"
	case d == 0:
		return "0%"
	case math.Abs(d) < 0.0005:
		return fmt.Sprintf("%+.2g%%", d*100)
	}
	return fmt.Sprintf("%+.1f%%", d*100)
}

// FormatCI prints the interval of a compared row's change, or why there
// is none.
func FormatCI(r findings.CompareRow) string {
	if r.NoCI {
		return "n too small"
	}
	return "[" + FormatDelta(r.DeltaLo) + ", " + FormatDelta(r.DeltaHi) + "]"
}

// FormatStat prints a median with its interval as ±%, or with its number
// of samples when it has no interval.
func FormatStat(s findings.Stat, u string) string {
	return formatStat(s, benchunit.Scale(s.Median, unit.Class(u)))
}

// formatStat is FormatStat with the median already scaled as v.
func formatStat(s findings.Stat, v string) string {
	if s.N == 0 || math.IsNaN(s.Median) {
		return "—"
	}
	if s.Median == 0 && s.Lo == 0 && s.Hi == 0 {
		return "0"
	}
	if !s.Interval || s.Median == 0 {
		return fmt.Sprintf("%s (n=%d)", v, s.N)
	}
	return fmt.Sprintf("%s ±%.0f%%", v, s.Spread*100)
}

// FormatStats prints two medians beside each other as FormatStat does,
// with the digits that tell them apart: medians that differ never print
// alike ("1.7421µ" and "1.7425µ" where FormatStat prints "1.742µ"
// twice), so a change printed beside them can be read off them.
func FormatStats(old, new findings.Stat, u string) (string, string) {
	o, n := FormatStat(old, u), FormatStat(new, u)
	if o != n || old.Median == new.Median || math.IsNaN(old.Median) || math.IsNaN(new.Median) || old.N == 0 || new.N == 0 {
		return o, n
	}
	sc := benchunit.CommonScale([]float64{old.Median, new.Median}, unit.Class(u))
	for range 8 { // float64 medians that differ part within 17 digits
		sc.Prec++
		if vo, vn := sc.Format(old.Median), sc.Format(new.Median); vo != vn {
			return formatStat(old, vo), formatStat(new, vn)
		}
	}
	return o, n
}

// showsChange reports whether a change between two medians printed as o
// and n is printed beside them: always when they read differently, or
// when the change is none; otherwise the change is not the medians' (a
// paired change over rounds whose medians are equal) and reads "—".
func showsChange(o, n string, change float64) bool {
	return o != n || change == 1 || math.IsNaN(change)
}

// FormatRatio prints a new/old ratio as a signed change, "+3.1%".
func FormatRatio(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return FormatDelta(x - 1)
}

// formatRatioCI prints a ratio's interval as changes, "[+2.8%, +3.4%]",
// or why there is none.
func formatRatioCI(r analysis.Ratio) string {
	if !r.HasInterval() {
		return fmt.Sprintf("none (%d rounds)", r.N)
	}
	return "[" + FormatDelta(r.Lo-1) + ", " + FormatDelta(r.Hi-1) + "]"
}

// FmtRatio formats a paired ratio as "×0.83 [0.81, 0.85]".
func FmtRatio(r analysis.Ratio) string {
	switch {
	case r.N == 0 || math.IsNaN(r.Ratio):
		return "—"
	case !r.HasInterval():
		return fmt.Sprintf("×%.3g [no interval, %d rounds]", r.Ratio, r.N)
	}
	return fmt.Sprintf("×%.3g [%.3g, %.3g]", r.Ratio, r.Lo, r.Hi)
}

// fmtPlainRatio is a ratio without the × sign: "0.93 [0.9, 0.95]".
func fmtPlainRatio(r analysis.Ratio) string {
	switch {
	case r.N == 0 || math.IsNaN(r.Ratio):
		return "—"
	case !r.HasInterval():
		return fmt.Sprintf("%.3g [?]", r.Ratio)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g]", r.Ratio, r.Lo, r.Hi)
}

// humanValue prints a value in its unit's human scale: 1.742µs for
// 1.742e-06 sec/op, 4.000KiB for 4096 B/op, 12.35k for 12345 req/s.
func humanValue(v float64, u string) string {
	if math.IsNaN(v) {
		return "–"
	}
	s := benchunit.Scale(v, unit.Class(u))
	switch u {
	case "sec/op":
		return s + "s"
	case "B/op":
		return s + "B"
	}
	return s
}

// esc makes text safe in Markdown, in a table cell or a paragraph: "|"
// is escaped, line breaks become spaces, and a "<" that would open an
// HTML tag, comment or autolink (followed by a letter, "/", "!" or "?")
// is written &lt;, so a benchmark name cannot inject markup into a pull
// request comment; "a < b" and "<=" stay as they are.
func esc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '|':
			b.WriteString(`\|`)
		case c == '\r':
		case c == '\n':
			b.WriteByte(' ')
		case c == '<' && i+1 < len(s) && opensTag(s[i+1]):
			b.WriteString("&lt;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func opensTag(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}
