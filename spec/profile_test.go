package spec

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestProfileGood(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "profile_good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Check{
		{Kind: "profile", Unit: "heap-lock-share", Where: "gomaxprocs=2", Num: "variant=plain", Op: ">", Value: 0.5, Line: 39},
		{Kind: "profile", Unit: "lock-share", Where: "gomaxprocs=2", Num: "variant=pooled", Den: "variant=plain", Op: "<", Value: -0.1, Line: 46},
	}
	if got := s.Claims[0].Checks; !reflect.DeepEqual(got, want) {
		t.Errorf("checks =\n%+v\nwant\n%+v", got, want)
	}
	if s.Analysis.Scaling != "gomaxprocs" {
		t.Errorf("analysis scaling = %q, want gomaxprocs", s.Analysis.Scaling)
	}
	c := s.Configs[1]
	if c.Modfile != "go122.mod" || !slices.Contains(c.BuildFlags(), "-modfile=go122.mod") || !strings.Contains(c.BuildKey(), "-modfile=go122.mod") {
		t.Errorf("config %s: modfile %q, build flags %q, key %q; want -modfile=go122.mod in flags and key", c.Name, c.Modfile, c.BuildFlags(), c.BuildKey())
	}
	if f := s.Configs[0].BuildFlags(); len(f) != 0 {
		t.Errorf("default config build flags = %q, want none", f)
	}
}

func TestProfileErrors(t *testing.T) {
	tests := []struct {
		file   string
		line   int
		substr string
	}{
		{"profile_bad_unit.toml", 41, `a profile check's unit names the share: "heap-lock-share"`},
		{"profile_value_range.toml", 43, `value 63 must be a share between 0 and 1`},
		{"profile_diff_range.toml", 44, `value -2 must be a difference of shares between -1 and 1`},
		{"profile_no_num.toml", 39, `a profile check needs num`},
		{"profile_no_value.toml", 39, `a profile check needs value`},
		{"profile_foreign.toml", 42, `axis is not a field of "profile" checks`},
		{"profile_mode_not_cell.toml", 39, `set profile = "cell" in [mode.full]`},
		{"modfile_abs.toml", 33, `modfile "/abs/go122.mod" must be a path relative to the spec's directory`},
		{"modfile_gomod.toml", 33, `must not be called go.mod`},
		{"modfile_suffix.toml", 33, `must name a file ending in ".mod"`},
		{"scaling_not_axis.toml", 25, `analysis scaling "cores" is not an axis of this spec`},
		{"scaling_not_procs.toml", 25, `analysis scaling axis "variant" must hold GOMAXPROCS values`},
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
