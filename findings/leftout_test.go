package findings

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/store"
)

func TestLeftOutRounds(t *testing.T) {
	for _, tt := range []struct {
		name, value string
		want        []int
	}{
		{"none flagged", "9:1.2%/0.50 10:1.1%/0.52", nil},
		{"two flagged", "9:1.2%/0.50 10:14.0%/1.90* 11:1.3%/0.60 12:9.9%/2.10*", []int{10, 12}},
		{"unsorted and repeated", "12:9%/2* 10:9%/2* 12:9%/2*", []int{10, 12}},
		{"malformed entries ignored", "x:1%* 0:5%* -3:1%* 7* :* 8:5%/1*", []int{8}},
		{"empty", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := []store.KV{{Key: "cpu", Value: "x"}, {Key: NoiseKey, Value: tt.value}}
			if got := LeftOutRounds(env); !slices.Equal(got, tt.want) {
				t.Errorf("LeftOutRounds(%q) = %v, want %v", tt.value, got, tt.want)
			}
		})
	}
	if got := LeftOutRounds([]store.KV{{Key: "noise-before", Value: "3:1%*"}}); got != nil {
		t.Errorf("another key's value was read: %v", got)
	}
}

// TestFindingsLeaveOutBurstRounds checks that a run's statistics use the
// same rounds its sequential sampling decided on: results of a flagged
// round are in no sample.
func TestFindingsLeaveOutBurstRounds(t *testing.T) {
	text := abText(map[int]float64{10: 1, 100: 0.5, 1000: 0.25})
	var rs []*benchfmt.Result
	r := benchfmt.NewReader(strings.NewReader(text), "ab")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			rs = append(rs, res.Clone())
		}
	}
	kept := WithoutRounds(rs, []int{3, 5})
	if len(kept) != len(rs)*6/8 {
		t.Fatalf("kept %d of %d results, want the 6 of 8 rounds not flagged", len(kept), len(rs))
	}
	for _, res := range kept {
		if round := roundOf(res); round == "3" || round == "5" {
			t.Errorf("a result of flagged round %s was kept", round)
		}
	}
	f := Of(Input{Results: kept, LeftOut: []int{3, 5}})
	if f.RoundsDone != 6 {
		t.Errorf("RoundsDone = %d, want 6", f.RoundsDone)
	}
	if !slices.ContainsFunc(f.Warnings, func(w string) bool { return strings.Contains(w, "rounds 3, 5") }) {
		t.Errorf("no warning names the left-out rounds: %q", f.Warnings)
	}
}

func FuzzLeftOutRounds(f *testing.F) {
	f.Add("9:1.2%/0.50 10:14.0%/1.90*")
	f.Add("x:* 99999999999999999999:1%*")
	f.Fuzz(func(t *testing.T, v string) {
		got := LeftOutRounds([]store.KV{{Key: NoiseKey, Value: v}})
		if !slices.IsSorted(got) {
			t.Errorf("not sorted: %v", got)
		}
		for _, n := range got {
			if n <= 0 {
				t.Errorf("round %d ≤ 0", n)
			}
		}
	})
}
