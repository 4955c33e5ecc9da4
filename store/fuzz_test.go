package store

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// FuzzOpen opens arbitrary file contents as a database: Open must return
// an error or a usable database, never panic.
func FuzzOpen(f *testing.F) {
	garbage, err := os.ReadFile("testdata/garbage.db")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(garbage)
	f.Add([]byte{})
	f.Add([]byte("SQLite format 3\x00"))
	f.Add(append([]byte("SQLite format 3\x00\x10\x00\x01\x01\x00\x40\x20\x20"), make([]byte, 200)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.db")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := Open(path)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("Open returned an empty error")
			}
			return
		}
		defer db.Close()
		// A database Open accepts must work.
		if _, err := db.CreateRun(context.Background(), &Run{Experiment: "fuzz"}); err != nil {
			t.Logf("CreateRun on accepted file: %v", err)
		}
	})
}

// FuzzAddRound stores one arbitrary result and checks it reads back exactly.
func FuzzAddRound(f *testing.F) {
	f.Add("BenchmarkReuse/size=1024-8", 1000, "goos", []byte("linux"), true, 1052e-9, "sec/op", 1052.0, "ns/op")
	f.Add("", 0, "", []byte{}, false, 0.0, "", 0.0, "")
	f.Add("Benchmark\x00\xff", -1, "k\x00", []byte{0xff, 0}, true, math.NaN(), "\xff", math.Inf(-1), "x")
	f.Add("BenchmarkZ", math.MaxInt64, "variant", []byte("a=b"), false, math.Copysign(0, -1), "B/op", math.MaxFloat64, "B/op")
	db, err := Open(filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	f.Fuzz(func(t *testing.T, name string, iters int, key string, value []byte, file bool, v float64, unit string, orig float64, origUnit string) {
		ctx := context.Background()
		id, err := db.CreateRun(ctx, &Run{Experiment: "fuzz"})
		if err != nil {
			t.Fatal(err)
		}
		want := &benchfmt.Result{
			Name:   benchfmt.Name(name),
			Iters:  iters,
			Config: []benchfmt.Config{{Key: key, Value: value, File: file}, {Key: "second", Value: value}},
			Values: []benchfmt.Value{{Value: v, Unit: unit, OrigValue: orig, OrigUnit: origUnit}, {Value: orig, Unit: origUnit}},
		}
		if err := db.AddRound(ctx, id, iters%1000, []*benchfmt.Result{want}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Results(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("got %d results, want 1", len(got))
		}
		if d := resultDiff(got[0], want); d != "" {
			t.Error(d)
		}
	})
}
