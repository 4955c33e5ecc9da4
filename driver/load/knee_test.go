package load

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// simulated is a server of known capacity: within it p99 is 2 ms; above
// it the queue grows and p99 is far above any SLO.
func simulated(capacity float64) Probe {
	return func(_ context.Context, rate float64) (Point, error) {
		if rate <= capacity {
			return Point{P99: 2 * time.Millisecond, Goodput: rate}, nil
		}
		return Point{P99: 400 * time.Millisecond, Goodput: capacity}, nil
	}
}

func TestKneeSearchSimulated(t *testing.T) {
	for _, tt := range []struct {
		name            string
		capacity, start float64
		growth, res     float64
	}{
		{"start below", 7300, 1000, 2, 0.05},
		{"start above", 7300, 50000, 2, 0.05},
		{"start at it", 7300, 7300, 1.3, 0.05},
		{"fine resolution", 123456, 500, 2, 0.01},
		{"coarse resolution", 950, 100, 3, 0.2},
		{"slow growth", 20000, 18000, 1.1, 0.02},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := Knee{SLO: 20 * time.Millisecond, Start: tt.start, Growth: tt.growth, Resolution: tt.res}
			res, err := k.Search(context.Background(), simulated(tt.capacity))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Bracketed || res.Limited {
				t.Fatalf("result %+v: want a bracketed knee", res)
			}
			// Within one step of the search's resolution of the capacity.
			if res.Rate > tt.capacity || res.Rate < tt.capacity/(1+tt.res) {
				t.Fatalf("knee %.1f, capacity %.0f: not within one step (%.0f%%)", res.Rate, tt.capacity, 100*tt.res)
			}
			if res.Failing <= tt.capacity || (res.Failing-res.Rate)/res.Rate > tt.res {
				t.Fatalf("bracket [%.1f, %.1f] around %.0f", res.Rate, res.Failing, tt.capacity)
			}
			if len(res.Points) > 24 {
				t.Errorf("%d probes", len(res.Points))
			}
		})
	}
}

func TestKneeSearchErrorsCount(t *testing.T) {
	// Latency stays low but errors start at 5000 req/s.
	probe := func(_ context.Context, rate float64) (Point, error) {
		p := Point{P99: time.Millisecond}
		if rate > 5000 {
			p.ErrorRate = 0.2
		}
		return p, nil
	}
	res, err := Knee{SLO: 10 * time.Millisecond, Start: 1000}.Search(context.Background(), probe)
	if err != nil || !res.Bracketed || res.Rate > 5000 || res.Rate < 5000/1.05 {
		t.Fatalf("res %+v, err %v", res, err)
	}
}

func TestKneeSearchLimited(t *testing.T) {
	calls := 0
	probe := func(_ context.Context, rate float64) (Point, error) {
		calls++
		if rate > 3000 {
			return Point{P99: time.Millisecond, Limited: true, Reason: "generator CPU"}, nil
		}
		return Point{P99: time.Millisecond}, nil
	}
	res, err := Knee{SLO: 10 * time.Millisecond, Start: 1000, Retries: 2}.Search(context.Background(), probe)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Limited || res.Bracketed || res.Rate != 2000 {
		t.Fatalf("res %+v: want limited at 4000 after passing 2000", res)
	}
	if calls != 2+3 { // 1000, 2000 pass; 4000 three times (two retries)
		t.Errorf("%d probes, want 5", calls)
	}
}

func TestKneeSearchBounds(t *testing.T) {
	if _, err := (Knee{Start: 1}).Search(context.Background(), simulated(1)); err == nil {
		t.Error("no SLO accepted")
	}
	if _, err := (Knee{SLO: time.Millisecond}).Search(context.Background(), simulated(1)); err == nil {
		t.Error("no start rate accepted")
	}
	// Never above MaxRate.
	res, err := Knee{SLO: time.Millisecond * 10, Start: 100, MaxRate: 1000}.Search(context.Background(), simulated(1e9))
	if err != nil || res.Bracketed || res.Rate != 1000 {
		t.Errorf("capped search: %+v, %v", res, err)
	}
	// Nothing passes.
	res, err = Knee{SLO: time.Millisecond * 10, Start: 1000}.Search(context.Background(), simulated(1))
	if err != nil || res.Rate != 0 || res.Bracketed {
		t.Errorf("all failing: %+v, %v", res, err)
	}
	// Probe errors end the search.
	boom := errors.New("boom")
	_, err = Knee{SLO: time.Millisecond, Start: 1}.Search(context.Background(), func(context.Context, float64) (Point, error) { return Point{}, boom })
	if !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
	// MaxProbes bounds the search.
	n := 0
	_, _ = Knee{SLO: time.Millisecond * 10, Start: 1, Growth: 1.01, MaxProbes: 5}.Search(context.Background(), func(ctx context.Context, r float64) (Point, error) {
		n++
		return simulated(1e6)(ctx, r)
	})
	if n != 5 {
		t.Errorf("%d probes with MaxProbes 5", n)
	}
}

// queueServer is a real HTTP server of known capacity: a single virtual
// server with a fixed service time of 1/capacity. Each request is answered
// when its turn in the queue is done, so the capacity holds exactly
// however late the handler's sleep wakes.
type queueServer struct {
	mu   sync.Mutex
	free time.Time
	per  time.Duration
}

func (q *queueServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q.mu.Lock()
	now := time.Now()
	start := q.free
	if start.Before(now) {
		start = now
	}
	q.free = start.Add(q.per)
	done := q.free
	q.mu.Unlock()
	time.Sleep(time.Until(done))
	w.Write([]byte("ok"))
}

// TestKneeSearchQueueServer runs the search with real load steps against
// a server of capacity 1000 req/s. With an SLO of 20 ms and 400 ms steps a
// rate 5% above capacity builds a queue of about 19 ms, so the knee lies
// between the capacity and 5% above it; the search must land within one
// step of its resolution of that range.
func TestKneeSearchQueueServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a few seconds of load")
	}
	const capacity = 1000.0
	tg := localTarget(t, &queueServer{per: time.Second / capacity})
	probe := func(ctx context.Context, rate float64) (Point, error) {
		r, err := Run(ctx, Step{Target: tg, Rate: rate, Duration: 400 * time.Millisecond, LateAfter: 2 * time.Millisecond})
		if err != nil {
			return Point{}, err
		}
		return PointOf(r), nil
	}
	k := Knee{SLO: 20 * time.Millisecond, Start: 600, Growth: 1.3, Resolution: 0.05, Retries: 2}
	res, err := k.Search(context.Background(), probe)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Points {
		t.Logf("%.0f req/s: p99 %v, goodput %.0f, pass %v %s", p.Rate, p.P99, p.Goodput, p.Pass, p.Reason)
	}
	if res.Limited {
		t.Skipf("this machine is too busy to pace the load: %s", res.Reason)
	}
	if !res.Bracketed {
		t.Fatalf("no knee bracketed: %+v", res)
	}
	if lo, hi := capacity/(1+k.Resolution), capacity*1.05*(1+k.Resolution); res.Rate < lo || res.Rate > hi {
		t.Fatalf("knee %.0f req/s; want it within one step of the capacity: [%.0f, %.0f]", res.Rate, lo, hi)
	}
}

// TestKneeSearchLatePass: a probe the generator limited still passes when
// it met the SLO at the full rate; one that failed the SLO is not trusted.
func TestKneeSearchLatePass(t *testing.T) {
	probe := func(_ context.Context, rate float64) (Point, error) {
		p := Point{P99: time.Millisecond, Dispatch: rate, Limited: true, Reason: "late"}
		if rate > 5000 {
			p.P99 = time.Second
		}
		return p, nil
	}
	res, err := Knee{SLO: 10 * time.Millisecond, Start: 1000}.Search(context.Background(), probe)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Limited || res.Rate != 4000 || !res.Points[0].Pass || !strings.Contains(res.Points[0].Reason, "passed although late") {
		t.Fatalf("res %+v: want passes up to 4000, then limited at 8000", res)
	}
}
