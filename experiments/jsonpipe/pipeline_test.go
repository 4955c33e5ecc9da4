package jsonpipe

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// applicable returns the variants this build can run.
func applicable() []Variant {
	var out []Variant
	for _, v := range Variants() {
		if v.NotApplicable == "" {
			out = append(out, v)
		}
	}
	return out
}

func TestVariantsListed(t *testing.T) {
	var names []string
	for _, v := range Variants() {
		names = append(names, v.Name)
		if (v.New == nil) == (v.NotApplicable == "") {
			t.Errorf("variant %s: exactly one of New and NotApplicable must be set", v.Name)
		}
		if v.NotApplicable != "" && !strings.Contains(v.NotApplicable, "GOEXPERIMENT=") {
			t.Errorf("variant %s: NotApplicable %q does not say which GOEXPERIMENT it needs", v.Name, v.NotApplicable)
		}
		if !slices.Contains(v.Stages, Parse) || !slices.Contains(v.Stages, Marshal) {
			t.Errorf("variant %s: stages %v lack parse or marshal", v.Name, v.Stages)
		}
	}
	want := []string{"heap", "pooled", "direct", "tree", "arena", "arenamap", "arenatree", "jsonv2"}
	if !slices.Equal(names, want) {
		t.Errorf("variants %v, want %v (the spec's variant axis)", names, want)
	}
}

// TestVariantsOnFiles runs every variant this build has over
// testdata/valid (output must decode to what encoding/json decodes the
// input to) and testdata/invalid (ErrInvalid).
func TestVariantsOnFiles(t *testing.T) {
	valid, _ := filepath.Glob(filepath.Join("testdata", "valid", "*.json"))
	invalid, _ := filepath.Glob(filepath.Join("testdata", "invalid", "*.json"))
	if len(valid) == 0 || len(invalid) == 0 {
		t.Fatal("no files in testdata/valid or testdata/invalid")
	}
	for _, v := range applicable() {
		for _, file := range valid {
			t.Run(v.Name+"/"+filepath.Base(file), func(t *testing.T) {
				in := readFile(t, file)
				var want any
				if err := json.Unmarshal(in, &want); err != nil {
					t.Fatalf("testdata file is not JSON: %v", err)
				}
				if err := Verify(v.New(), in, want); err != nil {
					t.Error(err)
				}
			})
		}
		for _, file := range invalid {
			t.Run(v.Name+"/invalid/"+filepath.Base(file), func(t *testing.T) {
				var m Meter
				err := v.New().Run(readFile(t, file), &m, nil)
				if !errors.Is(err, ErrInvalid) {
					t.Errorf("Run = %v, want ErrInvalid", err)
				}
			})
		}
	}
}

// TestVariantsOnGenerated checks every variant on a generated document,
// twice in a row on one pipeline (pools and reused buffers must not leak
// state from one run into the next), and that the stages it reports were
// timed.
func TestVariantsOnGenerated(t *testing.T) {
	d, err := Generate(5, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Generate(6, 10<<10)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range applicable() {
		t.Run(v.Name, func(t *testing.T) {
			p := v.New()
			for _, doc := range []*Doc{d, other, d} {
				if err := Verify(p, doc.JSON, doc.Value); err != nil {
					t.Fatal(err)
				}
			}
			var m Meter
			if err := p.Run(d.JSON, &m, nil); err != nil {
				t.Fatal(err)
			}
			for _, s := range v.Stages {
				if s != Release && m.Time[s] <= 0 {
					t.Errorf("stage %s: time %v, want > 0", s, m.Time[s])
				}
			}
			if m.Total() <= 0 {
				t.Errorf("total time %v", m.Total())
			}
		})
	}
}

// TestMeterCountsAllocs: with CountAllocs, the build stage of heap
// allocates (maps, boxed values) and the counts are per stage. The
// runtime counts every goroutine's allocations, so another goroutine
// (the test framework's, the runtime's) can add a few to any one run;
// they only add, and the least count over several runs is the stage's.
func TestMeterCountsAllocs(t *testing.T) {
	d, err := Generate(5, 10<<10)
	if err != nil {
		t.Fatal(err)
	}
	var least [NumStages]uint64
	for run := 0; run < 5; run++ {
		m := Meter{CountAllocs: true}
		if err := new(heapPipe).Run(d.JSON, &m, nil); err != nil {
			t.Fatal(err)
		}
		for s, n := range m.Allocs {
			if run == 0 || n < least[s] {
				least[s] = n
			}
		}
	}
	if least[Build] < uint64(d.Fields)/4 {
		t.Errorf("build stage: %d allocations for %d fields; the meter misses them", least[Build], d.Fields)
	}
	if least[Parse] > 4 {
		t.Errorf("parse stage: %d allocations, want the document copy only", least[Parse])
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMeterCountsGC: a Meter with CountGC attributes a GC cycle to the
// stage it completed in, and none to a stage without one.
func TestMeterCountsGC(t *testing.T) {
	tests := []struct {
		name   string
		gcIn   Stage
		stages []Stage
	}{
		{"in build", Build, []Stage{Parse, Build, Marshal}},
		{"in marshal", Marshal, []Stage{Parse, Build, Marshal}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Meter{CountGC: true}
			m.start()
			for _, s := range tt.stages {
				if s == tt.gcIn {
					runtime.GC()
				}
				m.lap(s)
			}
			for _, s := range tt.stages {
				switch got := m.GCs[s]; {
				case s == tt.gcIn && got < 1:
					t.Errorf("%s: %d GC cycles counted, want at least the forced one", s, got)
				case s != tt.gcIn && got > 1:
					t.Errorf("%s: %d GC cycles counted in a stage that forced none", s, got)
				}
			}
		})
	}
}
