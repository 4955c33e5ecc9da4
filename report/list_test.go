package report_test

import (
	"strings"
	"testing"

	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/spec"
)

// TestExperimentsText: perflab list's lines for an experiment.
func TestExperimentsText(t *testing.T) {
	s, err := spec.Parse("mini.toml", []byte(`
name = "mini"
title = "a small experiment"
driver = "gotest"
package = "."
benchmarks = ["BenchmarkA", "BenchmarkB"]

[[axis]]
key = "size"
quick = ["64"]
full = ["64", "1024"]

[mode.quick]
rounds = 6
benchtime = "20ms"

[mode.full]
rounds = 10
benchtime = "100ms"
cpu = [1, 4]

[[config]]
name = "default"

[[config]]
name = "nogc"
gogc = "off"

[[claim]]
id = "M1"
text = "B costs what A costs"
not_testable = "no article"
`))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := report.ExperimentsText(&b, []*spec.Spec{s, s}); err != nil {
		t.Fatal(err)
	}
	one := `mini — a small experiment
  benchmarks: BenchmarkA, BenchmarkB (driver gotest)
  axis size   quick 64; full 64,1024
  mode quick  6 rounds, benchtime 20ms, cpu []
  mode full   10 rounds, benchtime 100ms, cpu [1 4]
  config default      
  config nogc         GOGC=off
  claim M1  B costs what A costs
`
	if b.String() != one+"\n"+one {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), one+"\n"+one)
	}
}
