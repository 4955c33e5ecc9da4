package report

import (
	"encoding/xml"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perflab/perflab/claim"
)

// svgLabel is a text label of a forest plot.
type svgLabel struct {
	class, anchor, text string
	x, y                float64
}

// parseForest checks that svg is well-formed and returns its labels and
// its width and height.
func parseForest(t *testing.T, svg string) (labels []svgLabel, w, h float64) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	var cur *svgLabel
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, svg)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			num := func(k string) float64 { v, _ := strconv.ParseFloat(attr[k], 64); return v }
			switch e.Name.Local {
			case "svg":
				w, h = num("width"), num("height")
			case "text":
				cur = &svgLabel{class: attr["class"], anchor: attr["text-anchor"], x: num("x"), y: num("y")}
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(e)
			}
		case xml.EndElement:
			if e.Name.Local == "text" && cur != nil {
				labels = append(labels, *cur)
				cur = nil
			}
		}
	}
	return labels, w, h
}

// extent is the horizontal span a label takes at forestCharW a character.
func (l svgLabel) extent() (lo, hi float64) {
	w := float64(utf8.RuneCountInString(l.text)) * forestCharW
	switch l.anchor {
	case "start":
		return l.x, l.x + w
	case "end":
		return l.x - w, l.x
	}
	return l.x - w/2, l.x + w/2
}

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
		tested      string
		empty       bool
		thrLeftOfCI bool
		want        []string // labels, by class and text
		ticks       []string // tick labels, in order
		noWant      []string
	}{
		{name: "ratio beyond its threshold", tested: "a / b > 1.34", c: claim.CheckResult{Verdict: claim.Reproduced, Estimate: 1.5, Lo: 1.4, Hi: 1.6, Threshold: 1.34, Claimed: 1.79, BandLo: nan, BandHi: nan},
			thrLeftOfCI: true, want: []string{"thrlabel:threshold 1.34", "claimlabel:claimed 1.79", "estlabel:measured 1.5 [1.4, 1.6]", "scalelabel:log scale"}},
		{name: "ratio across decades", c: claim.CheckResult{Verdict: claim.Contradicted, Estimate: 0.6, Lo: 0.5, Hi: 0.7, Threshold: 1.86, Claimed: 3.47, BandLo: nan, BandHi: nan},
			want: []string{"thrlabel:threshold 1.86", "claimlabel:claimed 3.47", "estlabel:measured 0.6 [0.5, 0.7]"}, ticks: []string{"0.5", "1", "2"}},
		{name: "equivalence band", c: claim.CheckResult{Verdict: claim.Inconclusive, Estimate: 1.02, Lo: 0.95, Hi: 1.12, Threshold: nan, Claimed: 1, BandLo: 1 / 1.1, BandHi: 1.1},
			want: []string{"bandlabel:band [0.909, 1.1]", "claimlabel:claimed 1"}, noWant: []string{`class="thr"`}},
		{name: "context check", c: claim.CheckResult{Verdict: claim.Reproduced, Context: true, Estimate: 2, Lo: 1.9, Hi: 2.1, Threshold: 1, Claimed: nan, BandLo: nan, BandHi: nan},
			thrLeftOfCI: true, want: []string{"thrlabel:threshold 1"}, noWant: []string{"claimlabel"}},
		{name: "shares near zero: linear", c: claim.CheckResult{Verdict: claim.Contradicted, Estimate: 0.01, Lo: 0, Hi: 0.03, Threshold: 0.05, Claimed: nan, BandLo: nan, BandHi: nan},
			want: []string{"thrlabel:threshold 0.05", "estlabel:measured 0.01 [0, 0.03]"}, ticks: []string{"0", "0.02", "0.04"}, noWant: []string{"log scale"}},
		{name: "estimate without interval", c: claim.CheckResult{Verdict: claim.Inconclusive, Estimate: 1.2, Lo: nan, Hi: nan, Threshold: 1.5, Claimed: nan, BandLo: nan, BandHi: nan},
			want: []string{"estlabel:measured 1.2 (no interval)"}, noWant: []string{`class="ci"`}},
		{name: "no numbers", c: claim.CheckResult{Verdict: claim.NotTestable}, empty: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svg := string(forestPlot(tt.c, tt.tested))
			if tt.empty {
				if svg != "" {
					t.Fatalf("want no plot, got %s", svg)
				}
				return
			}
			labels, w, h := parseForest(t, svg)
			if w < 300 || h < 80 {
				t.Errorf("plot is %g×%g px, want at least 300×80", w, h)
			}
			got := map[string]bool{}
			var ticks []string
			for _, l := range labels {
				got[l.class+":"+l.text] = true
				if lo, hi := l.extent(); lo < 0 || hi > w || l.y > h || l.y < 10 {
					t.Errorf("label %q (%s) reaches outside the plot: x %.0f…%.0f, y %.0f of %g×%g", l.text, l.class, lo, hi, l.y, w, h)
				}
				if l.class == "ticklabel" {
					ticks = append(ticks, l.text)
				}
				for _, m := range labels {
					if m == l || m.y != l.y {
						continue
					}
					a, b := l.extent()
					c, d := m.extent()
					if a < d && c < b {
						t.Errorf("labels %q and %q overlap", l.text, m.text)
					}
				}
			}
			for _, want := range tt.want {
				if !got[want] {
					t.Errorf("plot lacks label %q; labels %v", want, labels)
				}
			}
			if tt.ticks != nil && strings.Join(ticks, " ") != strings.Join(tt.ticks, " ") {
				t.Errorf("ticks %v, want %v", ticks, tt.ticks)
			}
			for _, bad := range tt.noWant {
				if strings.Contains(svg, bad) {
					t.Errorf("plot has %q: %s", bad, svg)
				}
			}
			if tt.c.Context != strings.Contains(svg, `class="forest context"`) || tt.c.Context != strings.Contains(svg, "context, not counted") {
				t.Errorf("context %v, but the plot says otherwise: %s", tt.c.Context, svg)
			}
			if tt.thrLeftOfCI && !(xOf(t, svg, "thr") < xOf(t, svg, "ci")) {
				t.Errorf("threshold not drawn left of the interval: %s", svg)
			}
		})
	}
}
