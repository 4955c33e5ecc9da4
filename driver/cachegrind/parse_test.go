package cachegrind

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFiles(t *testing.T) {
	tests := []struct {
		file   string
		events int
		fn     string // a function that must be present
		fnIr   uint64 // its Ir
		wantIr uint64 // total Ir
		errHas string // non-empty: an error mentioning this
	}{
		// v=a at 100000x (+1 ramp-up op): 1206 instructions a call; v=b at 1000x: 102 rounds, 1230.
		{file: "nosim.out", events: 1, fn: "planted.workA", fnIr: 100_001 * 1206, wantIr: 121_831_101},
		{file: "sim.out", events: 9, fn: "planted.workA", fnIr: 1001 * 1230},
		{file: "truncated.out", errHas: "truncated"},
		{file: "mismatch.out", errHas: "add up to 10 but the summary says 11"},
		{file: "notcachegrind.out", errHas: "is this a Cachegrind output file"},
		{file: "toomany.out", errHas: "3 counts for 2 events"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, err := ParseFile(filepath.Join("testdata", tt.file))
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Events) != tt.events || p.Events[0] != "Ir" {
				t.Errorf("events = %v, want %d starting with Ir", p.Events, tt.events)
			}
			if got := p.Funcs[tt.fn]; got == nil || got[0] != tt.fnIr {
				t.Errorf("%s Ir = %v, want %d", tt.fn, got, tt.fnIr)
			}
			if ir, _ := p.Event("Ir"); tt.wantIr != 0 && ir != tt.wantIr {
				t.Errorf("total Ir = %d, want %d", ir, tt.wantIr)
			}
			if !strings.Contains(p.Command, "planted.test") {
				t.Errorf("command = %q", p.Command)
			}
			var sum uint64
			for _, c := range p.Funcs {
				sum += c[0]
			}
			if ir, _ := p.Event("Ir"); sum != ir {
				t.Errorf("functions sum to %d, total %d", sum, ir)
			}
		})
	}
}

func TestParseMissingTrailingCounts(t *testing.T) {
	in := "events: Ir Dr Dw\nfl=a.go\nfn=f\n1 10\n2 1 2 3\nfl=b.go\nfn=f\n3 . 4\nsummary: 11 6 3\n"
	p, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got := p.Funcs["f"]
	if got[0] != 11 || got[1] != 6 || got[2] != 3 {
		t.Errorf("f = %v, want [11 6 3] (summed over both files)", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"nosim.out", "sim.out", "truncated.out", "mismatch.out", "toomany.out"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("events: Ir\nfn=x\n1 18446744073709551615\n2 1\nsummary: 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		// Whatever parses is consistent: per-function counts add up to the summary.
		for i := range p.Events {
			var sum uint64
			for _, c := range p.Funcs {
				if len(c) != len(p.Events) {
					t.Fatalf("function with %d counts for %d events", len(c), len(p.Events))
				}
				sum += c[i]
			}
			if sum != p.Totals[i] {
				t.Fatalf("event %s: functions sum to %d, summary %d", p.Events[i], sum, p.Totals[i])
			}
		}
	})
}
