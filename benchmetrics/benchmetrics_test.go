package benchmetrics

import (
	"math"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

var sink any

type object struct{ a, b, c, d uint64 }

func TestMeasure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	tests := []struct {
		name  string
		bench func(b *testing.B)
		check func(t *testing.T, extra map[string]float64)
	}{
		{
			name: "GC with b.Loop",
			bench: func(b *testing.B) {
				defer Measure(b)()
				for b.Loop() {
					sink = new(object)
					runtime.GC()
				}
			},
			check: func(t *testing.T, extra map[string]float64) {
				if v := extra["gc-cycles/op"]; v < 0.99 || v > 3 {
					t.Errorf("gc-cycles/op = %v, want about 1 for one runtime.GC per op", v)
				}
				if v := extra["gc-pause-sec/op"]; v <= 0 || v > 0.01 {
					t.Errorf("gc-pause-sec/op = %v, want a small positive number of seconds", v)
				}
				if v := extra["heap-objects/op"]; v < 1 {
					t.Errorf("heap-objects/op = %v, want >= 1", v)
				}
				if v := extra["mutex-wait-sec/op"]; v < 0 {
					t.Errorf("mutex-wait-sec/op = %v, want >= 0", v)
				}
			},
		},
		{
			name: "one object per op with classic loop",
			bench: func(b *testing.B) {
				defer Measure(b)()
				for i := 0; i < b.N; i++ {
					sink = new(object)
				}
			},
			check: func(t *testing.T, extra map[string]float64) {
				if v := extra["heap-objects/op"]; math.Abs(v-1) > 0.05 {
					t.Errorf("heap-objects/op = %v, want about 1", v)
				}
				if v := extra["gc-cycles/op"]; v < 0 || v > 0.01 {
					t.Errorf("gc-cycles/op = %v, want a small fraction", v)
				}
			},
		},
		{
			name: "one object per op with b.Loop",
			bench: func(b *testing.B) {
				defer Measure(b)()
				for b.Loop() {
					sink = new(object)
				}
			},
			check: func(t *testing.T, extra map[string]float64) {
				if v := extra["heap-objects/op"]; math.Abs(v-1) > 0.05 {
					t.Errorf("heap-objects/op = %v, want about 1", v)
				}
			},
		},
		{
			name: "no allocation with setup outside the loop",
			bench: func(b *testing.B) {
				setup := make([]*object, 1000)
				for i := range setup {
					setup[i] = new(object)
				}
				sink = setup
				defer Measure(b)()
				x := uint64(1)
				for i := 0; i < b.N; i++ {
					x = x*31 + uint64(i)
				}
				sink = x
			},
			check: func(t *testing.T, extra map[string]float64) {
				if v := extra["heap-objects/op"]; v > 0.01 {
					t.Errorf("heap-objects/op = %v, want about 0", v)
				}
			},
		},
		{
			name: "contended mutex",
			bench: func(b *testing.B) {
				var mu sync.Mutex
				stop := make(chan struct{})
				done := make(chan struct{})
				go func() {
					defer close(done)
					for {
						select {
						case <-stop:
							return
						default:
						}
						mu.Lock()
						time.Sleep(20 * time.Microsecond)
						mu.Unlock()
						runtime.Gosched()
					}
				}()
				defer func() { close(stop); <-done }()
				defer Measure(b)()
				for b.Loop() {
					mu.Lock()
					mu.Unlock()
				}
			},
			check: func(t *testing.T, extra map[string]float64) {
				if v := extra["mutex-wait-sec/op"]; v <= 0 || v > 1 {
					t.Errorf("mutex-wait-sec/op = %v, want a positive number of seconds", v)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := testing.Benchmark(tt.bench)
			if r.N == 0 {
				t.Fatalf("benchmark did not run: %+v", r)
			}
			for _, u := range Units {
				if _, ok := r.Extra[u.Unit]; !ok {
					t.Errorf("unit %s not reported; got %v", u.Unit, r.Extra)
				}
			}
			tt.check(t, r.Extra)
			t.Logf("N=%d %v", r.N, r.Extra)
		})
	}
}

func TestReportSkips(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		bogus     int // index of a metric to replace with an unknown name, or -1
		wantUnits int
	}{
		{name: "all metrics", n: 10, bogus: -1, wantUnits: len(Units)},
		{name: "b.N is zero", n: 0, bogus: -1, wantUnits: 0},
		{name: "unsupported metric", n: 10, bogus: 1, wantUnits: len(Units) - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMeter()
			if tt.bogus >= 0 {
				m.before[tt.bogus].Name = "/no/such/metric:seconds"
				m.after[tt.bogus].Name = "/no/such/metric:seconds"
			}
			metrics.Read(m.before)
			sink = make([]byte, 1<<10)
			metrics.Read(m.after)
			got := map[string]float64{}
			m.report(tt.n, func(v float64, unit string) { got[unit] = v })
			if len(got) != tt.wantUnits {
				t.Errorf("reported %d units, want %d: %v", len(got), tt.wantUnits, got)
			}
			if tt.bogus >= 0 {
				if _, ok := got[Units[tt.bogus].Unit]; ok {
					t.Errorf("reported %s for an unsupported metric", Units[tt.bogus].Unit)
				}
			}
			for u, v := range got {
				if v < 0 || math.IsNaN(v) {
					t.Errorf("%s = %v, want >= 0", u, v)
				}
			}
		})
	}
}

func TestReportUnread(t *testing.T) {
	// Samples never read have KindBad: nothing is reported.
	m := newMeter()
	m.report(5, func(v float64, unit string) { t.Errorf("reported %s = %v from unread samples", unit, v) })
}

func TestHistogramTotal(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		h    *metrics.Float64Histogram
		want float64
	}{
		{name: "nil", h: nil, want: 0},
		{name: "malformed", h: &metrics.Float64Histogram{Counts: []uint64{1}, Buckets: []float64{1}}, want: 0},
		{
			name: "finite buckets",
			h:    &metrics.Float64Histogram{Counts: []uint64{2, 1}, Buckets: []float64{0, 2, 4}},
			want: 2*1 + 1*3,
		},
		{
			name: "infinite edges use the finite edge",
			h:    &metrics.Float64Histogram{Counts: []uint64{1, 3, 2}, Buckets: []float64{-inf, 1, 3, inf}},
			want: 1*1 + 3*2 + 2*3,
		},
		{
			name: "one bucket spanning everything",
			h:    &metrics.Float64Histogram{Counts: []uint64{5}, Buckets: []float64{-inf, inf}},
			want: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := histogramTotal(tt.h); got != tt.want {
				t.Errorf("histogramTotal = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUnitsMatchMetrics(t *testing.T) {
	if len(Units) != len(metricNames) {
		t.Fatalf("%d units but %d metric names", len(Units), len(metricNames))
	}
	supported := map[string]bool{}
	for _, d := range metrics.All() {
		supported[d.Name] = true
	}
	for i, name := range metricNames {
		if !supported[name] {
			t.Errorf("metric %s (for %s) is not supported by %s", name, Units[i].Unit, runtime.Version())
		}
		if Units[i].Better != "lower" {
			t.Errorf("%s: Better = %q, want lower", Units[i].Unit, Units[i].Better)
		}
	}
}
