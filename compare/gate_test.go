package compare

import (
	"math"
	"strings"
	"testing"
)

func TestParseThresholds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // canonical rules joined by ","; "" when an error is expected
		err  string // substring of the error
	}{
		{"sec/op>+5%", "sec/op>5%", ""},
		{"sec/op>5%", "sec/op>5%", ""},
		{" sec/op > +5 % ", "sec/op>5%", ""},
		{"ns/op>+2.5%", "sec/op>2.5%", ""},
		{"req/s<-5%", "req/s<-5%", ""},
		{"sec/op>+5%,B/op>+10%", "sec/op>5%,B/op>10%", ""},
		{"sec/op>+5%,,", "sec/op>5%", ""},
		{"B/op>0%", "B/op>0%", ""},
		{"", "", "no threshold"},
		{",", "", "no threshold"},
		{"sec/op", "", "no '>' or '<'"},
		{">5%", "", "no unit"},
		{"sec/op>5", "", "end in '%'"},
		{"sec/op>=5%", "", "only '>' and '<'"},
		{"sec/op>-5%", "", "0% or more"},
		{"req/s<+5%", "", "0% or less"},
		{"req/s<-100%", "", "100% or more"},
		{"sec/op>abc%", "", "plain number"},
		{"sec/op>NaN%", "", "plain number"},
		{"sec/op>Inf%", "", "plain number"},
		{"sec/op>0x10%", "", "plain number"},
		{"sec op>5%", "", "space"},
		{"sec/op>1e9%", "", "too large"},
	} {
		got, err := ParseThresholds(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseThresholds(%q) error = %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseThresholds(%q): %v", tc.in, err)
			continue
		}
		var s []string
		for _, th := range got {
			s = append(s, th.String())
		}
		if strings.Join(s, ",") != tc.want {
			t.Errorf("ParseThresholds(%q) = %s, want %s", tc.in, strings.Join(s, ","), tc.want)
		}
	}
}

// FuzzParseThresholds: any input either parses into rules whose canonical
// form parses back to the same rules, or fails with an error; never a panic.
func FuzzParseThresholds(f *testing.F) {
	for _, s := range []string{"sec/op>+5%", "req/s<-5%", "sec/op>+5%,B/op>+10%", "", ">", "<%", "a<-99.999%", "x>1e5%", "ns/op>+.5%", "µs/op>3%", "\xff>1%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ths, err := ParseThresholds(s)
		if err != nil {
			if len(ths) != 0 {
				t.Fatalf("error %v with rules %v", err, ths)
			}
			return
		}
		var canon []string
		for _, th := range ths {
			if th.Op != '>' && th.Op != '<' || th.Unit == "" {
				t.Fatalf("bad rule %+v from %q", th, s)
			}
			if th.Op == '>' && th.Limit < 0 || th.Op == '<' && (th.Limit > 0 || th.Limit <= -1) {
				t.Fatalf("limit %v on the wrong side for %q", th.Limit, s)
			}
			canon = append(canon, th.String())
		}
		again, err := ParseThresholds(strings.Join(canon, ","))
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", canon, s, err)
		}
		for i := range again {
			if again[i].Unit != ths[i].Unit || again[i].Op != ths[i].Op || again[i].Limit != ths[i].Limit {
				t.Fatalf("round trip of %q: %+v != %+v", s, again[i], ths[i])
			}
		}
	})
}

// TestCheck: a row fails a rule of its unit only when its adjusted p-value
// is at most α, it is significant, it has an interval and the interval
// lies wholly beyond the limit; a rule whose unit no row reports is
// unmatched.
func TestCheck(t *testing.T) {
	row := func(name string, padj, lo, hi float64) Row {
		return Row{Name: name, Unit: "sec/op", P: padj / 2, PAdj: padj, Signif: true, Interval: true, Delta: (lo + hi) / 2, Lo: lo, Hi: hi, HalfWidth: (hi - lo) / 2}
	}
	rows := []Row{
		row("beyond", 0.01, 0.08, 0.12),
		row("straddles", 0.01, 0.03, 0.12),
		row("not a discovery", 0.2, 0.08, 0.12),
		row("faster", 0.01, -0.2, -0.1),
		{Name: "no interval", Unit: "sec/op", PAdj: 0.01, Signif: true, Lo: math.Inf(-1), Hi: math.Inf(1), HalfWidth: math.Inf(1)},
		{Name: "not significant", Unit: "sec/op", PAdj: 0.01, Interval: true, Lo: 0.08, Hi: 0.12, HalfWidth: 0.02},
		{Name: "B", Unit: "B/op", PAdj: 0.01, Signif: true, Interval: true, Lo: 0.5, Hi: 0.7, HalfWidth: 0.06},
	}
	for _, tc := range []struct {
		rules     string
		fails     []string
		unmatched int
	}{
		{"sec/op>+5%", []string{"beyond"}, 0},
		{"sec/op<-5%", []string{"faster"}, 0},
		{"sec/op>+15%", nil, 0},
		{"B/op>+10%,req/s<-5%", []string{"B"}, 1},
	} {
		ths, err := ParseThresholds(tc.rules)
		if err != nil {
			t.Fatal(err)
		}
		fails, unmatched := Check(rows, 0.05, ths)
		var got []string
		for _, f := range fails {
			got = append(got, f.Row.Name)
		}
		if strings.Join(got, ",") != strings.Join(tc.fails, ",") || len(unmatched) != tc.unmatched {
			t.Errorf("%s: fails %v, unmatched %v; want %v and %d unmatched", tc.rules, got, unmatched, tc.fails, tc.unmatched)
		}
	}
	ths, _ := ParseThresholds("sec/op>+1%")
	var imprecise []string
	for _, r := range Imprecise(rows, ths) {
		imprecise = append(imprecise, r.Name)
	}
	if strings.Join(imprecise, ",") != "not significant" {
		t.Errorf("Imprecise = %v, want the row without a significant change whose half-width exceeds 1%%", imprecise)
	}
}
