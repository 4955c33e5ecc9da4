package report

import (
	"math"
	"testing"

	"github.com/perflab/perflab/findings"
)

// TestEsc: the one Markdown escaper keeps table cells whole and markup
// out, and leaves comparisons readable.
func TestEsc(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a | b", `a \| b`},
		{"line\r\nbreak", "line break"},
		{"<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>"},
		{"<!-- x --> <?php <https://x>", "&lt;!-- x --> &lt;?php &lt;https://x>"},
		{"ratio < 0.9, p <= 0.05, a<1", "ratio < 0.9, p <= 0.05, a<1"},
		{"BenchmarkX/v=<b>-2", "BenchmarkX/v=&lt;b>-2"},
		{"trailing <", "trailing <"},
	} {
		if got := esc(tc.in); got != tc.want {
			t.Errorf("esc(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFormatStat(t *testing.T) {
	for _, tc := range []struct {
		s    findings.Stat
		unit string
		want string
	}{
		{findings.Stat{Median: 1.5e-6, Lo: 1.47e-6, Hi: 1.56e-6, N: 10, Interval: true, Spread: 0.04}, "sec/op", "1.500µ ±4%"},
		{findings.Stat{Median: 1.5e-6, Lo: math.Inf(-1), Hi: math.Inf(1), N: 3}, "sec/op", "1.500µ (n=3)"},
		{findings.Stat{Median: 0, Lo: 0, Hi: 0, N: 6, Interval: true}, "allocs/op", "0"},
		{findings.Stat{Median: math.NaN()}, "B/op", "—"},
		{findings.Stat{Median: 4096, Lo: 4096, Hi: 4096, N: 6, Interval: true}, "B/op", "4.000Ki ±0%"},
	} {
		if got := FormatStat(tc.s, tc.unit); got != tc.want {
			t.Errorf("FormatStat(%+v, %s) = %q, want %q", tc.s, tc.unit, got, tc.want)
		}
	}
	for d, want := range map[float64]string{0.052: "+5.2%", -0.003: "-0.3%", 0: "0%", math.Inf(1): "+∞", math.NaN(): "?"} {
		if got := FormatDelta(d); got != want && !(math.IsNaN(d) && got == "?") {
			t.Errorf("FormatDelta(%g) = %q, want %q", d, got, want)
		}
	}
}
