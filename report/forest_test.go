package report

import (
	"encoding/xml"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/claim"
)

func TestForestPlot(t *testing.T) {
	nan := math.NaN()
	xOf := func(t *testing.T, svg, class string) float64 {
		t.Helper()
		m := regexp.MustCompile(`class="` + class + `" (?:x1|cx)="([0-9.]+)"`).FindStringSubmatch(svg)
		if m == nil {
			t.Fatalf("no %s in %s", class, svg)
		}
		x, _ := strconv.ParseFloat(m[1], 64)
		return x
	}
	tests := []struct {
		name        string
		c           claim.CheckResult
		empty       bool
		thrLeftOfCI bool
		want        []string
	}{
		{name: "ratio beyond its threshold", c: claim.CheckResult{Verdict: claim.Reproduced, Predicate: "a / b > 1.34", Estimate: 1.5, Lo: 1.4, Hi: 1.6, Threshold: 1.34, Claimed: 1.79, BandLo: nan, BandHi: nan},
			thrLeftOfCI: true, want: []string{"(log)", `class="claimed"`, "tested: a / b &gt; 1.34"}},
		{name: "equivalence band", c: claim.CheckResult{Verdict: claim.Inconclusive, Estimate: 1.02, Lo: 0.95, Hi: 1.12, Threshold: nan, Claimed: 1, BandLo: 1 / 1.1, BandHi: 1.1},
			want: []string{`class="band"`}},
		{name: "context check", c: claim.CheckResult{Verdict: claim.Reproduced, Context: true, Estimate: 2, Lo: 1.9, Hi: 2.1, Threshold: 1, Claimed: nan, BandLo: nan, BandHi: nan},
			thrLeftOfCI: true, want: []string{`class="forest context"`, "context, not counted"}},
		{name: "shares near zero: linear", c: claim.CheckResult{Verdict: claim.Contradicted, Estimate: 0.01, Lo: 0, Hi: 0.03, Threshold: 0.05, Claimed: nan, BandLo: nan, BandHi: nan},
			want: []string{`class="thr"`}},
		{name: "no numbers", c: claim.CheckResult{Verdict: claim.NotTestable}, empty: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svg := string(forestPlot(tt.c))
			if tt.empty {
				if svg != "" {
					t.Fatalf("want no plot, got %s", svg)
				}
				return
			}
			d := xml.NewDecoder(strings.NewReader(svg))
			for {
				if _, err := d.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("not well-formed: %v\n%s", err, svg)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(svg, w) {
					t.Errorf("plot lacks %q: %s", w, svg)
				}
			}
			if tt.thrLeftOfCI && !(xOf(t, svg, "thr") < xOf(t, svg, "ci")) {
				t.Errorf("threshold not drawn left of the interval: %s", svg)
			}
		})
	}
}
