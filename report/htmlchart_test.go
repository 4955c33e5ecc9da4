package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"golang.org/x/perf/benchunit"
)

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 100, []float64{0, 20, 40, 60, 80, 100}},
		{0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{13e-9, 47e-9, []float64{20e-9, 30e-9, 40e-9}},
		{13e-9, 37e-9, []float64{15e-9, 20e-9, 25e-9, 30e-9, 35e-9}},
		{5, 5, []float64{5}},
	} {
		got := niceTicks(tc.lo, tc.hi, 5)
		if len(got) != len(tc.want) {
			t.Errorf("niceTicks(%g, %g) = %v, want %v", tc.lo, tc.hi, got, tc.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12*math.Max(1, math.Abs(tc.want[i])) {
				t.Errorf("niceTicks(%g, %g) = %v, want %v", tc.lo, tc.hi, got, tc.want)
				break
			}
		}
	}
}

func TestAxisNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "0"}, {10000, "10000"}, {0.25, "0.25"}, {1e9, "1e+09"}, {-40, "-40"}} {
		if got := axisNumber(tc.v); got != tc.want {
			t.Errorf("axisNumber(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, v := range niceTicks(0, 1, 10) {
		if s := axisNumber(v); len(s) > 4 {
			t.Errorf("tick %q of [0, 1] is not round", s)
		}
	}
}

func TestTickLabel(t *testing.T) {
	for _, tc := range []struct {
		v     float64
		class benchunit.Class
		want  string
	}{
		{0, benchunit.Decimal, "0"},
		{80e-9, benchunit.Decimal, "80n"},
		{1.5e-6, benchunit.Decimal, "1.5µ"},
		{2000, benchunit.Decimal, "2k"},
		{1024, benchunit.Binary, "1Ki"},
		{-20, benchunit.Decimal, "-20"},
	} {
		if got := tickLabel(tc.v, tc.class); got != tc.want {
			t.Errorf("tickLabel(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestDecades(t *testing.T) {
	for _, tc := range []struct {
		vs   []float64
		want bool
	}{
		{[]float64{1, 10, 100}, true},
		{[]float64{64, 1024, 8192}, true},
		{[]float64{0, 10, 100}, false}, // zero has no log
		{[]float64{10, 100, 999}, false},
		{nil, false},
	} {
		if got := analysis.SpansDecades(tc.vs); got != tc.want {
			t.Errorf("SpansDecades(%v) = %v, want %v", tc.vs, got, tc.want)
		}
	}
}

// eightSeries is a chart with eight lines that end close together, the
// hardest case for direct labels.
func eightSeries() *Chart {
	c := &Chart{Title: "eight", XLabel: "size", YLabel: "sec/op"}
	for i := 0; i < 8; i++ {
		s := ChartSeries{Label: fmt.Sprintf("variant-%d", i)}
		for _, x := range []float64{1, 10, 100, 1000, 10000} {
			y := (10 + float64(i)*0.1) * 1e-9 * math.Sqrt(x)
			s.Points = append(s.Points, ChartPoint{X: x, Y: y, Lo: y * 0.95, Hi: y * 1.05, Tip: s.Label})
		}
		c.Series = append(c.Series, s)
	}
	c.AutoLog()
	return c
}

func TestChartEightSeriesReadable(t *testing.T) {
	c := eightSeries()
	if !c.LogX || !c.LogY {
		t.Fatalf("LogX %v LogY %v; both axes span decades", c.LogX, c.LogY)
	}
	svg := c.SVG()
	if err := xmlOK(svg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, "size (log scale)") || !strings.Contains(svg, "sec/op (log scale)") {
		t.Errorf("log axes are not labelled as such")
	}
	// Every series has its own colour, dash pattern and point shape.
	lines := regexp.MustCompile(`<polyline class="line" points="[^"]*" fill="none" stroke="([^"]+)" stroke-width="2"( stroke-dasharray="([^"]+)")?/>`).FindAllStringSubmatch(svg, -1)
	if len(lines) != 8 {
		t.Fatalf("%d lines, want 8", len(lines))
	}
	styles := map[string]bool{}
	colours := map[string]bool{}
	for _, l := range lines {
		styles[l[3]] = true
		colours[l[1]] = true
	}
	if len(styles) != 8 || len(colours) != 8 {
		t.Errorf("%d dash patterns and %d colours for 8 series", len(styles), len(colours))
	}
	// Direct labels: one per series, at least 12 px apart.
	re := regexp.MustCompile(`<text x="[0-9.]+" y="([0-9.]+)" dominant-baseline="middle">(variant-\d)</text>`)
	var ys []float64
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		y, _ := strconv.ParseFloat(m[1], 64)
		ys = append(ys, y)
	}
	if len(ys) != 8 {
		t.Fatalf("%d direct labels, want 8", len(ys))
	}
	slices.Sort(ys)
	for i := 1; i < len(ys); i++ {
		if ys[i]-ys[i-1] < 12 {
			t.Errorf("labels %d and %d overlap: y %v", i-1, i, ys)
		}
	}
}

func TestChartOddValues(t *testing.T) {
	c := &Chart{Title: `a "quoted" <title> & more`, Series: []ChartSeries{
		{Label: "nan", Points: []ChartPoint{{X: 1, Y: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, {X: 2, Y: 1, Lo: math.Inf(-1), Hi: math.Inf(1)}}},
		{Label: "flat", Points: []ChartPoint{{X: 1, Y: 0}, {X: 2, Y: 0}}},
		{Label: "empty"},
	}, Markers: []ChartMarker{
		{Kind: MarkCrossover, X: 1.5, Series: 0, Label: "x<y"},
		{Kind: MarkKnee, X: math.NaN(), Series: 5},
		{Kind: MarkChange, X: 99, Series: -1},
	}}
	c.AutoLog()
	svg := c.SVG()
	if err := xmlOK(svg); err != nil {
		t.Fatalf("%v\n%s", err, svg)
	}
	if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Errorf("non-finite numbers reached the SVG:\n%s", svg)
	}
	if !strings.Contains(svg, `data-label="x&lt;y"`) {
		t.Errorf("marker label not escaped")
	}
}

func xmlOK(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}
