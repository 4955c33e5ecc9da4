package env

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestNoise(t *testing.T) {
	r, err := Noise(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if r.N != 10 {
		t.Errorf("N = %d, want 10", r.N)
	}
	if r.CV < 0 {
		t.Errorf("CV = %v, want >= 0", r.CV)
	}
	if r.Median <= 0 {
		t.Errorf("Median = %v, want > 0", r.Median)
	}
}

func TestNoiseBadN(t *testing.T) {
	for _, n := range []int{-1, 0, 1} {
		if _, err := Noise(context.Background(), n); err == nil {
			t.Errorf("Noise(n=%d) succeeded, want an error", n)
		}
	}
}

func TestNoiseCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Noise(ctx, 1000); !errors.Is(err, context.Canceled) {
		t.Errorf("Noise on a cancelled context: err = %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Noise(ctx, 1_000_000)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Noise past its deadline: err = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Noise took %v to notice its deadline", d)
	}
}

func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name    string
		in      []time.Duration
		median  time.Duration
		cv      float64
		wantErr bool
	}{
		{name: "constant", in: []time.Duration{ms, ms, ms}, median: ms, cv: 0},
		{name: "even count", in: []time.Duration{4 * ms, 2 * ms}, median: 3 * ms, cv: 0.4714045207910317},
		{name: "odd count", in: []time.Duration{3 * ms, 1 * ms, 2 * ms}, median: 2 * ms, cv: 0.5},
		{name: "too few", in: []time.Duration{ms}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := summarize(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if r.N != len(tt.in) || r.Median != tt.median || abs(r.CV-tt.cv) > 1e-9 {
				t.Errorf("summarize = %+v, want N=%d Median=%v CV=%v", r, len(tt.in), tt.median, tt.cv)
			}
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestNoiseResultString(t *testing.T) {
	tests := []struct {
		r    NoiseResult
		want string
	}{
		{NoiseResult{N: 30, Median: 1023 * time.Microsecond, CV: 0.018}, "cv=1.8% (n=30, median 1.02ms)"},
		{NoiseResult{N: 2, Median: 850 * time.Microsecond, CV: 0}, "cv=0.0% (n=2, median 850µs)"},
		{NoiseResult{N: 5, Median: 12500 * time.Microsecond, CV: 0.123}, "cv=12.3% (n=5, median 12.5ms)"},
		{NoiseResult{N: 3, Median: 2 * time.Second, CV: 1}, "cv=100.0% (n=3, median 2.00s)"},
		{NoiseResult{N: 3, Median: 999, CV: 0.5}, "cv=50.0% (n=3, median 999ns)"},
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
