package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	layoutsHead = "bench,align,side,layout,round,pos,iters,value,unit\n"
	sourcesHead = "bench,cond,round,proc,pos,iters,pad,rep1,rep2\n"
)

func TestReadCSV(t *testing.T) {
	for _, c := range []struct {
		name, in         string
		layouts, sources int    // rows wanted
		err              string // error wanted, "" for none
	}{
		{"layouts", "# s\n" + layoutsHead + "B/x,0,base,1,1,0,100,1.5e-6,sec/op\nB/x,64,old,2,0,0,100,1234,instructions/op\n", 2, 0, ""},
		{"sources", sourcesHead + "B,base,1,1,0,10,0,1e-6,2e-6\nB,envpad,1,2,1,10,4096,1e-6,2e-6\n", 0, 2, ""},
		{"header only", layoutsHead, 0, 0, ""},
		{"quoted name with a comma", layoutsHead + "\"B/a,b\",0,base,1,1,0,100,1.5e-6,sec/op\n", 1, 0, ""},
		{"empty", "", 0, 0, "empty file"},
		{"settings only", "# s\n", 0, 0, "empty file"},
		{"unknown header", "a,b,c\n1,2,3\n", 0, 0, "line 1: header"},
		{"reps out of order", "bench,cond,round,proc,pos,iters,pad,rep2\n", 0, 0, "want rep1"},
		{"too few fields", layoutsHead + "B,0,base,1,1,0,100,1e-6\n", 0, 0, "line 2: 8 fields, want 9"},
		{"line counts the settings", "# s\n" + layoutsHead + "B,0,base,1,1,0,100,1e-6\n", 0, 0, "line 3:"},
		{"negative align", layoutsHead + "B,-64,base,1,1,0,100,1e-6,sec/op\n", 0, 0, "align"},
		{"zero value", layoutsHead + "B,0,base,1,1,0,100,0,sec/op\n", 0, 0, "value"},
		{"NaN value", layoutsHead + "B,0,base,1,1,0,100,NaN,sec/op\n", 0, 0, "value"},
		{"Inf value", layoutsHead + "B,0,base,1,1,0,100,+Inf,sec/op\n", 0, 0, "value"},
		{"unknown unit", layoutsHead + "B,0,base,1,1,0,100,1e-6,ns/op\n", 0, 0, "unit"},
		{"timed row in round 0", layoutsHead + "B,0,base,1,0,0,100,1e-6,sec/op\n", 0, 0, "round 0"},
		{"zero iterations", layoutsHead + "B,0,base,1,1,0,0,1e-6,sec/op\n", 0, 0, "iters"},
		{"empty bench", layoutsHead + ",0,base,1,1,0,100,1e-6,sec/op\n", 0, 0, "empty bench"},
		{"bad layout seed", layoutsHead + "B,0,base,x,1,0,100,1e-6,sec/op\n", 0, 0, "layout"},
		{"negative rep", sourcesHead + "B,base,1,1,0,10,0,-1e-6,2e-6\n", 0, 0, "rep1"},
		{"source round 0", sourcesHead + "B,base,0,1,0,10,0,1e-6,2e-6\n", 0, 0, "round"},
		{"bare quote", layoutsHead + "B\"x,0,base,1,1,0,100,1e-6,sec/op\n", 0, 0, "line 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := readCSV(strings.NewReader(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Layouts) != c.layouts || len(d.Sources) != c.sources {
				t.Errorf("%d layout and %d source rows, want %d and %d", len(d.Layouts), len(d.Sources), c.layouts, c.sources)
			}
		})
	}
}

// write writes a dataset as the measurements do.
func write(t testing.TB, d *dataset) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	reps := 0
	if len(d.Sources) > 0 {
		reps = len(d.Sources[0].Reps)
	}
	if err := writeHeader(w, &b, d.Settings, reps); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	for _, r := range d.Layouts {
		w.Write(r.record())
	}
	for _, r := range d.Sources {
		w.Write(r.record())
	}
	w.Flush()
	return b.Bytes()
}

// TestRecordedFilesRoundTrip reads the CSV files two tiny real runs wrote
// (gjson, 2 layouts × 3 rounds at 10 ms; sources at 3 rounds), writes them
// again and reads back the same rows, and prints their tables.
func TestRecordedFilesRoundTrip(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"gjson-layouts.csv", []string{"BenchmarkABGet/LargeDoc", "Planted change new/old", "funcalign 64 against 0"}},
		{"gjson-sources.csv", []string{"BenchmarkABGet/SmallDoc", "gomaxprocs1", "noaslr", "left: base's process SD"}},
	} {
		path := filepath.Join("testdata", c.file)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := readCSV(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		again, err := readCSV(bytes.NewReader(write(t, d)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d, again) {
			t.Errorf("%s: rows written and read again differ", path)
		}
		var out bytes.Buffer
		if err := analyzeFile(path, &out); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: the tables do not say %q:\n%s", path, w, out.String())
			}
		}
	}
}

// FuzzReadCSV: no input makes readCSV panic, and whatever it accepts it
// writes and reads back as the same rows.
func FuzzReadCSV(f *testing.F) {
	for _, name := range []string{"gjson-layouts.csv", "gjson-sources.csv"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(layoutsHead + "B,0,base,1,1,0,100,1e-6,sec/op\n"))
	f.Add([]byte(sourcesHead + "B,base,1,1,0,10,0,1e-6,2e-6\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := readCSV(bytes.NewReader(in))
		if err != nil {
			return
		}
		if strings.ContainsAny(d.Settings, "\r\n") {
			return // a settings line ends at its newline; a stray \r is kept, and not written back the same
		}
		again, err := readCSV(bytes.NewReader(write(t, d)))
		if err != nil {
			t.Fatalf("rows accepted, written back, then refused: %v", err)
		}
		if !reflect.DeepEqual(d, again) {
			t.Fatalf("rows written back differ:\n%+v\n%+v", d, again)
		}
		// The estimates of any accepted rows must not panic either.
		estimateLayouts(d.Layouts)
		estimatePlanted(d.Layouts)
		estimateSources(d.Sources)
	})
}
