package compare

import (
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

// TestCheckControlsFalseDiscoveries: among hundreds of unchanged rows, one
// that looks significant by chance does not fail the gate; a regression
// seen across many rows does.
func TestCheckControlsFalseDiscoveries(t *testing.T) {
	th, err := ParseThresholds("sec/op>+5%")
	if err != nil {
		t.Fatal(err)
	}
	row := func(p, lo float64) Row {
		return Row{Unit: "sec/op", P: p, Signif: p < 0.05, Delta: lo + 0.05, DeltaLo: lo, DeltaHi: lo + 0.1}
	}
	var aa Result
	aa.Opt.Alpha = 0.05
	for i := 0; i < 400; i++ {
		aa.Rows = append(aa.Rows, row(0.5, -0.05))
	}
	aa.Rows = append(aa.Rows, row(0.0043, 0.12)) // one chance hit, as in a real A/A run
	if fails, _ := aa.Check(th); len(fails) != 0 {
		t.Errorf("A/A with one chance hit failed %d rows", len(fails))
	}
	var planted Result
	planted.Opt.Alpha = 0.05
	for i := 0; i < 400; i++ {
		planted.Rows = append(planted.Rows, row(0.0022, 0.15)) // every benchmark 20% slower
	}
	if fails, _ := planted.Check(th); len(fails) != 400 {
		t.Errorf("planted regression failed %d of 400 rows", len(fails))
	}
	// A single row alone is judged at plain alpha.
	single := Result{Rows: []Row{row(0.0022, 0.15)}}
	single.Opt.Alpha = 0.05
	if fails, _ := single.Check(th); len(fails) != 1 {
		t.Errorf("a lone significant regression passed the gate")
	}
}
