package main

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/culprit"
	"github.com/perflab/perflab/revision"
)

// TestBisectOptionsCarryEveryFlag parses bisect's flags and checks that
// each reaches the bisect's options, and that a flag left out leaves the
// option zero for package culprit's default.
func TestBisectOptionsCarryEveryFlag(t *testing.T) {
	files := []revision.File{{Name: "x_test.go", Data: []byte("package x")}}
	tests := []struct {
		args []string
		want culprit.Options
	}{
		{[]string{"-bench", "Work"}, culprit.Options{Dir: ".", Bench: "Work", Alpha: 0.05, MinEffect: defaultMinEffect, Benchtime: "100ms", FuncAlign: 64}},
		{[]string{"-C", "mod", "-bench", "Work", "--bench-for", "Work/n=1", "--alpha", "0.1", "--min-effect", "5%", "--unit", "instructions/op",
			"--measure", "instructions", "--benchtime", "20ms", "--budget", "8m", "--max-rounds", "40", "--layout", "fixed", "--seed", "7", "-v",
			"--resume", "--out", "outdir", "--cache", "cachedir", "--funcalign", "0"},
			culprit.Options{Dir: "mod", Bench: "Work", BenchFor: "Work/n=1", Alpha: 0.1, MinEffect: 0.05, Unit: "instructions/op", Measure: "instructions",
				Benchtime: "20ms", Budget: 8 * time.Minute, MaxRounds: 40, Layout: "fixed", FuncAlign: -1, Seed: 7, Verbose: true, Resume: true,
				CacheDir: "cachedir", ArtifactDir: "outdir"}},
	}
	for _, tt := range tests {
		var f bisectFlags
		fs := flag.NewFlagSet("bisect", flag.ContinueOnError)
		f.declare(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if err := f.check(); err != nil {
			t.Fatalf("%q: check: %v", tt.args, err)
		}
		got := f.options("v1", "main", []string{"./codec"}, []int{4}, files, nil)
		want := tt.want
		want.Good, want.Bad, want.Packages, want.CPU, want.With = "v1", "main", []string{"./codec"}, []int{4}, files
		if want.ArtifactDir == "" {
			want.ArtifactDir = defaultOut()
		}
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("%q: options\n%+v\nwant\n%+v", tt.args, got, want)
		}
	}
}

// TestBisectCheck: flag values bisect refuses before it opens anything.
func TestBisectCheck(t *testing.T) {
	tests := []struct {
		args []string
		err  string
	}{
		{nil, "-bench REGEX is required"},
		{[]string{"-bench", "W", "--alpha", "0"}, "--alpha 0: want an error rate"},
		{[]string{"-bench", "W", "--max-rounds", "7"}, "--max-rounds 7: a step needs at least 8 rounds"},
		{[]string{"-bench", "W", "--layout", "shuffled"}, "--layout"},
		{[]string{"-bench", "W", "--unit", "B/op"}, `--unit "B/op"`},
		{[]string{"-bench", "W", "--measure", "joules"}, "--measure"},
		{[]string{"-bench", "W", "--unit", "instructions/op"}, "needs --measure instructions"},
		{[]string{"-bench", "W", "--max-rounds", "8", "--layout", "fixed"}, ""},
	}
	for _, tt := range tests {
		var f bisectFlags
		fs := flag.NewFlagSet("bisect", flag.ContinueOnError)
		f.declare(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		err := f.check()
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%q: check() = %v, want %q", tt.args, err, tt.err)
		}
	}
}
