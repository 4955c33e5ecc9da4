package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// readTestResults reads testdata/results.txt and returns its results, with
// an internal config key added to each so both kinds of config are stored.
func readTestResults(t testing.TB) []*benchfmt.Result {
	t.Helper()
	res, _ := readTestFile(t)
	return res
}

func readTestFile(t testing.TB) ([]*benchfmt.Result, []UnitMeta) {
	t.Helper()
	f, err := os.Open("testdata/results.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := benchfmt.NewReader(f, "results.txt")
	var (
		out   []*benchfmt.Result
		units []UnitMeta
	)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			r := rec.Clone()
			r.SetConfig("variant", fmt.Sprintf("v%d", len(out)%3))
			out = append(out, r)
		case *benchfmt.UnitMetadata:
			units = append(units, UnitMeta{rec.Unit, rec.Key, rec.Value})
		case *benchfmt.SyntaxError:
			t.Fatalf("testdata: %v", rec)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 || len(units) == 0 {
		t.Fatalf("testdata/results.txt: %d results, %d unit lines; want some of each", len(out), len(units))
	}
	return out, units
}

// sameFloat reports whether a and b are the same float64, bit for bit
// (any NaN matches any NaN).
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// resultDiff describes the first difference between two results, or
// returns "" if they match in every stored field.
func resultDiff(got, want *benchfmt.Result) string {
	if !bytes.Equal(got.Name, want.Name) {
		return fmt.Sprintf("name %q, want %q", got.Name, want.Name)
	}
	if got.Iters != want.Iters {
		return fmt.Sprintf("%s: iters %d, want %d", want.Name, got.Iters, want.Iters)
	}
	if len(got.Config) != len(want.Config) {
		return fmt.Sprintf("%s: %d config keys, want %d", want.Name, len(got.Config), len(want.Config))
	}
	for i, c := range want.Config {
		g := got.Config[i]
		if g.Key != c.Key || !bytes.Equal(g.Value, c.Value) || g.File != c.File {
			return fmt.Sprintf("%s: config %d = %+v, want %+v", want.Name, i, g, c)
		}
	}
	if len(got.Values) != len(want.Values) {
		return fmt.Sprintf("%s: %d values, want %d", want.Name, len(got.Values), len(want.Values))
	}
	for i, v := range want.Values {
		g := got.Values[i]
		if !sameFloat(g.Value, v.Value) || g.Unit != v.Unit || !sameFloat(g.OrigValue, v.OrigValue) || g.OrigUnit != v.OrigUnit {
			return fmt.Sprintf("%s: value %d = %+v, want %+v", want.Name, i, g, v)
		}
	}
	return ""
}

func compareResults(t testing.TB, got, want []*benchfmt.Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d", len(got), len(want))
	}
	for i := range want {
		if d := resultDiff(got[i], want[i]); d != "" {
			t.Errorf("result %d: %s", i, d)
		}
	}
}

func TestAddRoundFromFile(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	id := newRun(t, db, "reuse")
	results, units := readTestFile(t)

	// Store in three rounds, out of order, to check ordering by round.
	rounds := map[int][]*benchfmt.Result{2: results[:3], 0: results[3:5], 1: results[5:]}
	for _, round := range []int{2, 0, 1} {
		if err := db.AddRound(ctx, id, round, rounds[round]); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetUnitMeta(ctx, id, units); err != nil {
		t.Fatal(err)
	}
	got, err := db.Results(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var want []*benchfmt.Result
	for round := 0; round < 3; round++ {
		want = append(want, rounds[round]...)
	}
	compareResults(t, got, want)

	gotUnits, err := db.UnitMeta(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotUnits, units) {
		t.Errorf("UnitMeta = %q, want %q", gotUnits, units)
	}
	done, err := db.RoundsDone(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(done, []int{0, 1, 2}) {
		t.Errorf("RoundsDone = %v, want [0 1 2]", done)
	}
	// The stored results behave as benchfmt results.
	if got[0].GetConfig("goos") != "linux" || got[0].GetConfig("variant") == "" {
		t.Errorf("GetConfig on a stored result: goos=%q variant=%q", got[0].GetConfig("goos"), got[0].GetConfig("variant"))
	}
}

func TestAddRoundExactValues(t *testing.T) {
	negZero := math.Copysign(0, -1)
	tests := []struct {
		name string
		r    *benchfmt.Result
	}{
		{"empty result", &benchfmt.Result{Name: benchfmt.Name("")}},
		{"special floats", &benchfmt.Result{Name: benchfmt.Name("BenchmarkF"), Iters: 1, Values: []benchfmt.Value{
			{Value: math.NaN(), Unit: "a"},
			{Value: negZero, Unit: "b", OrigValue: negZero, OrigUnit: "b0"},
			{Value: math.Inf(1), Unit: "c", OrigValue: math.Inf(-1), OrigUnit: "c0"},
			{Value: math.SmallestNonzeroFloat64, Unit: "d", OrigValue: math.MaxFloat64},
			{Value: 0.1 + 0.2, Unit: "e", OrigValue: 1e-9, OrigUnit: "ns/op"},
			{Value: 3, Unit: "f", OrigValue: math.NaN(), OrigUnit: "f0"},
		}}},
		{"odd bytes", &benchfmt.Result{Name: benchfmt.Name(pgText("Benchmark\x00nul/\xffbad=\xfe-8")), Iters: math.MaxInt64,
			Config: []benchfmt.Config{
				{Key: "empty", Value: []byte{}, File: true},
				{Key: pgText("nul\x00key"), Value: []byte(pgText("v\x00v")), File: false},
				{Key: "bad", Value: []byte(pgText("\xff\xfe")), File: true},
			},
			Values: []benchfmt.Value{{Value: -1, Unit: pgText("\xff/op")}}}},
		{"many values", func() *benchfmt.Result {
			r := &benchfmt.Result{Name: benchfmt.Name("BenchmarkMany"), Iters: -3}
			for i := 0; i < 50; i++ {
				r.Values = append(r.Values, benchfmt.Value{Value: float64(i) / 7, Unit: fmt.Sprintf("u%d/op", i)})
				r.Config = append(r.Config, benchfmt.Config{Key: fmt.Sprintf("k%d", i), Value: []byte("x"), File: i%2 == 0})
			}
			return r
		}()},
	}
	db := openTemp(t)
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := newRun(t, db, tc.name)
			if err := db.AddRound(ctx, id, 7, []*benchfmt.Result{tc.r}); err != nil {
				t.Fatal(err)
			}
			got, err := db.Results(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			compareResults(t, got, []*benchfmt.Result{tc.r})
		})
	}
}

func TestAddRoundEmptyRound(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	id := newRun(t, db, "empty")
	if err := db.AddRound(ctx, id, 4, nil); err != nil {
		t.Fatal(err)
	}
	done, err := db.RoundsDone(ctx, id)
	if err != nil || !reflect.DeepEqual(done, []int{4}) {
		t.Errorf("RoundsDone = %v, %v; want [4]", done, err)
	}
	got, err := db.Results(ctx, id)
	if err != nil || len(got) != 0 {
		t.Errorf("Results = %d results, %v; want none", len(got), err)
	}
	if err := db.AddRound(ctx, id, 4, nil); !errors.Is(err, ErrRoundExists) {
		t.Errorf("second empty round 4: %v, want ErrRoundExists", err)
	}
}

func TestAddRoundAtomic(t *testing.T) {
	results := readTestResults(t)
	tests := []struct {
		name    string
		round   int
		results []*benchfmt.Result
		ctx     func() (context.Context, func())
		hook    func(cancel func()) func(int)
		wantErr error
	}{
		{name: "duplicate round", round: 0, results: results[:2], wantErr: ErrRoundExists},
		{name: "cancelled before", round: 1, results: results,
			ctx: func() (context.Context, func()) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			}, wantErr: context.Canceled},
		{name: "cancelled mid-round", round: 1, results: results,
			ctx: func() (context.Context, func()) { return context.WithCancel(context.Background()) },
			hook: func(cancel func()) func(int) {
				return func(i int) {
					if i == 2 {
						cancel()
					}
				}
			}, wantErr: context.Canceled},
		{name: "nil result", round: 1, results: append(append([]*benchfmt.Result{}, results[:3]...), nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := openTemp(t)
			id := newRun(t, db, tc.name)
			bg := context.Background()
			if err := db.AddRound(bg, id, 0, results); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := bg, func() {}
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			if tc.hook != nil {
				addRoundHook = tc.hook(cancel)
				defer func() { addRoundHook = nil }()
			}
			err := db.AddRound(ctx, id, tc.round, tc.results)
			if err == nil {
				t.Fatal("AddRound succeeded, want error")
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error = %v, want %v", err, tc.wantErr)
			}
			// Only round 0, intact, is stored.
			got, err := db.Results(bg, id)
			if err != nil {
				t.Fatal(err)
			}
			compareResults(t, got, results)
			done, err := db.RoundsDone(bg, id)
			if err != nil || !reflect.DeepEqual(done, []int{0}) {
				t.Errorf("RoundsDone = %v, %v; want [0]", done, err)
			}
			// The database is still usable and the failed round can be stored.
			if err := db.AddRound(bg, id, 1, results[:1]); err != nil {
				t.Errorf("AddRound after failure: %v", err)
			}
		})
	}
}

// benchRound builds n results with 10 values and 5 config keys each.
func benchRound(n int) []*benchfmt.Result {
	out := make([]*benchfmt.Result, n)
	for i := range out {
		r := &benchfmt.Result{
			Name:  benchfmt.Name(fmt.Sprintf("BenchmarkReuse/size=%d/reuse=%d-8", 1<<(i%16), i%100)),
			Iters: 1000 + i,
			Config: []benchfmt.Config{
				{Key: "goos", Value: []byte("linux"), File: true},
				{Key: "goarch", Value: []byte("amd64"), File: true},
				{Key: "pkg", Value: []byte("github.com/perflab/perflab/experiments/reuse"), File: true},
				{Key: "cpu", Value: []byte("Example CPU @ 2.00GHz"), File: true},
				{Key: "variant", Value: []byte(fmt.Sprintf("v%d", i%4))},
			},
		}
		for j := 0; j < 10; j++ {
			r.Values = append(r.Values, benchfmt.Value{Value: float64(i*j) + 0.5, Unit: fmt.Sprintf("m%d/op", j), OrigValue: float64(i), OrigUnit: "ns/op"})
		}
		out[i] = r
	}
	return out
}

func BenchmarkAddRound(b *testing.B) {
	db := openTemp(b)
	ctx := context.Background()
	id := newRun(b, db, "bench")
	results := benchRound(500)
	b.ReportAllocs()
	round := 0
	for b.Loop() {
		if err := db.AddRound(ctx, id, round, results); err != nil {
			b.Fatal(err)
		}
		round++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/500, "ns/result")
}

func BenchmarkResults(b *testing.B) {
	db := openTemp(b)
	ctx := context.Background()
	id := newRun(b, db, "bench")
	results := benchRound(500)
	for round := 0; round < 4; round++ {
		if err := db.AddRound(ctx, id, round, results); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		got, err := db.Results(ctx, id)
		if err != nil || len(got) != 2000 {
			b.Fatalf("Results: %d, %v", len(got), err)
		}
	}
}
