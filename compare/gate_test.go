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

// TestRule: one row under one rule, every way a gate can rule on it.
// Changes are new/old − 1; an interval is given as [lo, hi].
func TestRule(t *testing.T) {
	row := func(padj, delta, lo, hi float64) Row {
		return Row{Name: "B", Unit: "sec/op", Delta: delta, Lo: lo, Hi: hi, P: padj / 2, PAdj: padj,
			Signif: lo > 0 || hi < 0, Interval: true, HalfWidth: (math.Log1p(hi) - math.Log1p(lo)) / 2}
	}
	none := Row{Name: "B", Unit: "sec/op", Delta: 0.01, Lo: math.NaN(), Hi: math.NaN(), P: 1, PAdj: 1, HalfWidth: math.Inf(1)}
	same := Row{Name: "B", Unit: "sec/op", P: 1, PAdj: 1, Same: true, Lo: math.NaN(), Hi: math.NaN(), HalfWidth: math.Inf(1)}
	for _, tc := range []struct {
		name string
		rule string
		row  Row
		want Decision
		why  Why
	}{
		{"decided pass: the whole interval below the limit", "sec/op>+5%", row(0.5, 0.01, -0.01, 0.03), Within, Decided},
		{"decided pass: faster", "sec/op>+1%", row(0.01, -0.1, -0.12, -0.08), Within, Decided},
		{"decided fail: a discovery wholly beyond", "sec/op>+5%", row(0.01, 0.1, 0.08, 0.12), Beyond, Decided},
		{"undecided: straddles the limit, significant", "sec/op>+5%", row(0.01, 0.06, 0.03, 0.12), Undecided, HoldsLimit},
		{"undecided: holds 0 and the limit", "sec/op>+1%", row(0.9, 0, -0.075, 0.082), Undecided, HoldsLimit},
		{"undecided: touches the limit", "sec/op>+5%", row(0.01, 0.04, 0.03, 0.05), Undecided, HoldsLimit},
		{"undecided: a 0% rule and an interval around 0", "B/op>0%", Row{Name: "B", Unit: "B/op", P: 0.5, PAdj: 0.5, Interval: true, Lo: -0.01, Hi: 0.01, HalfWidth: 0.01}, Undecided, HoldsLimit},
		{"undecided: beyond but not a discovery", "sec/op>+5%", row(0.2, 0.1, 0.08, 0.12), Undecided, NoDiscovery},
		{"undecided: no interval", "sec/op>+5%", none, Undecided, NoInterval},
		{"undecided: infinite interval", "sec/op>+5%", Row{Name: "B", Unit: "sec/op", Delta: math.Inf(1), Lo: 0.5, Hi: math.Inf(1), PAdj: 0.01, Signif: true, Interval: true, HalfWidth: math.Inf(1)}, Undecided, NoInterval},
		{"identical values: within", "sec/op>+0%", same, Within, Decided},
		{"drop rule: decided fail", "req/s<-5%", Row{Name: "B", Unit: "req/s", Delta: -0.1, Lo: -0.12, Hi: -0.08, PAdj: 0.01, Signif: true, Interval: true, HalfWidth: 0.02}, Beyond, Decided},
		{"drop rule: decided pass on a rise", "req/s<-5%", Row{Name: "B", Unit: "req/s", Delta: 0.1, Lo: 0.08, Hi: 0.12, PAdj: 0.01, Signif: true, Interval: true, HalfWidth: 0.02}, Within, Decided},
		{"drop rule: straddles", "req/s<-5%", Row{Name: "B", Unit: "req/s", Delta: -0.05, Lo: -0.09, Hi: -0.01, PAdj: 0.01, Signif: true, Interval: true, HalfWidth: 0.04}, Undecided, HoldsLimit},
	} {
		ths, err := ParseThresholds(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		got := Rule(tc.row, 0.05, ths[0])
		if got.Decision != tc.want || got.Why != tc.why {
			t.Errorf("%s: %s on %+v = %v (%v), want %v (%v)", tc.name, tc.rule, tc.row, got.Decision, got.Why, tc.want, tc.why)
		}
		if got.Decision != Undecided && got.Why != Decided {
			t.Errorf("%s: decided %v with a reason %v", tc.name, got.Decision, got.Why)
		}
	}
	// The distance to the limit is on the log scale: 0% from +1% is
	// log(1.01).
	ths, _ := ParseThresholds("sec/op>+1%")
	if d := Rule(row(0.9, 0, -0.075, 0.082), 0.05, ths[0]).Distance; math.Abs(d-math.Log(1.01)) > 1e-12 {
		t.Errorf("distance from 0 to +1%% = %v, want log(1.01)", d)
	}
}

// TestCheck: every row of a rule's unit is ruled on; a rule whose unit no
// row reports is unmatched; Fails, Undecided and Of read the rulings.
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
		{Name: "not significant", Unit: "sec/op", PAdj: 0.5, Interval: true, Lo: -0.01, Hi: 0.02, HalfWidth: 0.015},
		{Name: "B", Unit: "B/op", PAdj: 0.01, Signif: true, Interval: true, Lo: 0.5, Hi: 0.7, HalfWidth: 0.06},
	}
	for _, tc := range []struct {
		rules     string
		fails     []string
		undecided []string
		unmatched int
	}{
		{"sec/op>+5%", []string{"beyond"}, []string{"straddles", "not a discovery", "no interval"}, 0},
		{"sec/op<-5%", []string{"faster"}, []string{"no interval"}, 0},
		{"sec/op>+15%", nil, []string{"no interval"}, 0},
		{"sec/op>+1%", []string{"beyond", "straddles"}, []string{"not a discovery", "no interval", "not significant"}, 0},
		{"B/op>+10%,req/s<-5%", []string{"B"}, nil, 1},
	} {
		ths, err := ParseThresholds(tc.rules)
		if err != nil {
			t.Fatal(err)
		}
		g := Check(rows, 0.05, ths)
		names := func(rs []Ruling) string {
			var out []string
			for _, r := range rs {
				out = append(out, r.Row.Name)
			}
			return strings.Join(out, ",")
		}
		if names(g.Fails()) != strings.Join(tc.fails, ",") || names(g.Undecided()) != strings.Join(tc.undecided, ",") || len(g.Unmatched) != tc.unmatched {
			t.Errorf("%s: fails %q, undecided %q, unmatched %v; want %q, %q and %d unmatched", tc.rules, names(g.Fails()), names(g.Undecided()), g.Unmatched,
				tc.fails, tc.undecided, tc.unmatched)
		}
	}
	// Of: a broken rule governs a row over one that left it undecided.
	ths, _ := ParseThresholds("sec/op>+5%,sec/op>+10%")
	g := Check(rows, 0.05, ths)
	if r, ok := g.Of("", "straddles", "sec/op"); !ok || r.Decision != Undecided {
		t.Errorf("Of(straddles) = %v, %v; want undecided", r.Decision, ok)
	}
	rows[1].Lo = 0.06 // now beyond +5%, and still holding +10%
	g = Check(rows, 0.05, ths)
	if r, ok := g.Of("", "straddles", "sec/op"); !ok || r.Decision != Beyond || r.Threshold.Pct != 5 {
		t.Errorf("Of(straddles) = %v under %s, want beyond +5%%", r.Decision, r.Threshold)
	}
	if _, ok := g.Of("", "B", "B/op"); ok {
		t.Error("Of found a ruling for a unit no rule reads")
	}
}
