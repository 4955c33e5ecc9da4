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
// "-0.3%", "0%", "+∞".
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
	if s.N == 0 || math.IsNaN(s.Median) {
		return "—"
	}
	v := benchunit.Scale(s.Median, unit.Class(u))
	if s.Median == 0 && s.Lo == 0 && s.Hi == 0 {
		return "0"
	}
	if !s.Interval || s.Median == 0 {
		return fmt.Sprintf("%s (n=%d)", v, s.N)
	}
	return fmt.Sprintf("%s ±%.0f%%", v, s.Spread*100)
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
