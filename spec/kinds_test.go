package spec

import (
	"errors"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestKindsGood(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "kinds_good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Check{
		{{Kind: "knee", Unit: "sec/op", A: "lib=std", Axis: "depth", Min: 6, Max: 6, Line: 25}},
		{{Kind: "value", Unit: "allocs/op", Where: "depth=8", Num: "lib=iter", Op: "<=", Value: 0, Line: 36}},
	}
	if len(s.Claims) != len(want) {
		t.Fatalf("got %d claims, want %d", len(s.Claims), len(want))
	}
	for i, c := range s.Claims {
		if !reflect.DeepEqual(c.Checks, want[i]) {
			t.Errorf("claim %s checks =\n%+v\nwant\n%+v", c.ID, c.Checks, want[i])
		}
	}
}

func TestCorrelationGood(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "kind_corr_good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Check{
		{Kind: "correlation", Unit: "r-scav-lockwait", Num: "lib=iter,depth=8", Effect: 0.93, Line: 25},
		{Kind: "correlation", Unit: "r-scav-lockwait", Num: "lib=std,depth=8", Op: "<", Value: 0.3, Why: "no correlation expected", Context: true, Line: 31},
	}
	if got := s.Claims[0].Checks; !reflect.DeepEqual(got, want) {
		t.Errorf("checks =\n%+v\nwant\n%+v", got, want)
	}
}

func TestKindsErrors(t *testing.T) {
	tests := []struct {
		file   string
		line   int
		substr string
	}{
		{"kind_value_no_value.toml", 25, `a value check needs value`},
		{"kind_value_bad_op.toml", 28, `op "==" must be "<", "<=", ">" or ">="`},
		{"kind_value_foreign.toml", 28, `den is not a field of "value" checks`},
		{"kind_value_no_num.toml", 25, `a value check needs num`},
		{"kind_knee_axis_selected.toml", 27, `a selects depth=3, but "depth" is the axis the knee is found along`},
		{"kind_knee_not_numeric.toml", 28, `axis "lib" must be numeric for a knee`},
		{"kind_knee_range.toml", 29, `min 7 is greater than max 5`},
		{"kind_knee_no_max.toml", 25, `a knee check needs min and max`},
		{"kind_knee_bend.toml", 31, `bend "sideways" must be "up" (steeper after the knee) or "down"`},
		{"bend_on_ratio.toml", 30, `bend is for knee checks`},
		{"kind_knee_foreign.toml", 29, `op is not a field of "knee" checks`},
		{"kind_unknown.toml", 26, `unknown kind "slope"; use "ratio", "contrast", "crossover", "value", "knee", "profile" or "correlation"`},
		{"kind_corr_no_unit.toml", 25, `a correlation check needs unit`},
		{"kind_corr_effect_range.toml", 29, `effect 1.5 must be the claimed coefficient`},
		{"kind_corr_no_threshold.toml", 25, `needs effect = r (the claimed coefficient), or op and value`},
		{"kind_corr_foreign.toml", 29, `den is not a field of "correlation" checks`},
		{"kind_contrast_missing.toml", 25, `a contrast check needs num, den (the ratio) and a, b (the two series it is taken in); b is missing`},
		{"kind_value_effect.toml", 30, `effect is for ratio and correlation checks`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			_, err := Load(path)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("Load(%s) = %v, want an *Error", path, err)
			}
			prefix := path + ":" + strconv.Itoa(tt.line) + ": "
			if got := err.Error(); !strings.HasPrefix(got, prefix) || !strings.Contains(got, tt.substr) {
				t.Errorf("error = %q\nwant prefix %q and fragment %q", got, prefix, tt.substr)
			}
		})
	}
}
