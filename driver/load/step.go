package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Step describes one load step against one target.
//
// With Rate > 0 the step follows the open model: request i is due at its
// intended time i/Rate after the start, whether or not earlier requests
// have been answered; its latency is measured from that intended time
// (coordinated-omission-correct) and its service time from the moment it
// was actually written. With Rate == 0 the step follows the closed model:
// Conns connections each send a request as soon as the previous response
// has arrived, which measures peak throughput; latency and service time
// are then the same.
type Step struct {
	Target   *Target       // from Resolve; required
	Requests [][]byte      // raw requests sent in turn; nil: a GET of Target.URL with Header
	Header   http.Header   // extra header fields of the default request
	Rate     float64       // requests per second; 0 selects the closed model
	Duration time.Duration // length of the schedule (open) or of the run (closed); required
	// MaxRequests bounds the requests of the step. 0 means Rate×Duration
	// (plus a little slack) in the open model and MaxRequestsCap in the
	// closed model.
	MaxRequests int64
	// Conns is the number of connections: the most requests in flight
	// (open model; default 64) or the concurrency (closed; default 16).
	Conns int
	// Drain is how long responses may still arrive after the schedule ends;
	// requests unanswered by then count as errors, requests not yet sent
	// as unsent. Default 2s.
	Drain time.Duration
	// LateAfter is the pacing lag beyond which a dispatch counts as late.
	// Default 1ms.
	LateAfter time.Duration
	// AllowRemote lets connections go to non-loopback addresses. Resolve
	// must have been called with the same setting.
	AllowRemote bool
}

// Result is what one step measured.
type Result struct {
	Open      bool          // open model (Rate > 0)
	Rate      float64       // requested rate (open model)
	Duration  time.Duration // planned length
	Elapsed   time.Duration // from the start to the last response
	Scheduled int64         // requests the schedule called for (open) or claimed (closed)
	Sent      int64         // requests written
	Responses int64         // complete responses, any status
	Status    map[int]int64 // responses per status code
	Errors    int64         // transport errors: connect, reset, timeout, malformed response
	Unsent    int64         // scheduled but never written (backlog full, or step over)
	FirstErr  string        // text of the first transport error, if any
	BodyBytes int64         // response body bytes received
	MaxBusy   int           // most connections busy at once

	// Latency (from the intended time, open model) and Service (from the
	// actual send) in nanoseconds; one histogram per worker, merged.
	Latency, Service *hdrhistogram.Histogram

	Health Health
}

// Health says whether the generator kept up with what the step asked for.
// A Limited step measured the load generator rather than the target and
// must not be reported as the target's result.
type Health struct {
	RequestedRate float64       // the step's rate (open model)
	DispatchRate  float64       // requests handed to connections per second of schedule
	ResponseRate  float64       // responses per second of elapsed time
	MaxLag        time.Duration // largest pacing lag: dispatch time − intended time
	Late          int64         // dispatches more than LateAfter behind schedule
	LateAfter     time.Duration
	CPU           float64 // CPU cores the generator process used on average
	CPUs          int     // cores the generator may use (GOMAXPROCS)
	Limited       bool
	Reason        string // why the step is limited by the generator
}

// Thresholds of Health.
const (
	maxLateFraction = 0.01 // of scheduled requests
	maxCPUFraction  = 0.90 // of the generator's cores
)

// Histogram range: 1 µs to 60 s, in nanoseconds, at three significant figures.
const (
	histMin = 1_000
	histMax = 60_000_000_000
	histSig = 3
)

// NewHistogram returns an empty latency histogram in nanoseconds with the
// range and precision the load generator uses.
func NewHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histSig) }

// Merge returns a new histogram holding the counts of all hs.
func Merge(hs ...*hdrhistogram.Histogram) *hdrhistogram.Histogram {
	out := NewHistogram()
	for _, h := range hs {
		if h != nil {
			out.Merge(h)
		}
	}
	return out
}

func record(h *hdrhistogram.Histogram, d time.Duration) {
	ns := d.Nanoseconds()
	if ns < histMin {
		ns = histMin
	}
	if ns > histMax {
		ns = histMax
	}
	_ = h.RecordValue(ns)
}

func (s *Step) check() error {
	switch {
	case s.Target == nil || s.Target.URL == nil || len(s.Target.Addrs) == 0:
		return errors.New("load step has no target; call Resolve first")
	case s.Duration <= 0 || s.Duration > MaxDuration:
		return fmt.Errorf("load step duration %v must be in (0, %v]", s.Duration, MaxDuration)
	case s.Rate < 0 || s.Rate > MaxRate || math.IsNaN(s.Rate):
		return fmt.Errorf("load step rate %g must be in [0, %d] requests per second", s.Rate, MaxRate)
	case s.MaxRequests < 0 || s.MaxRequests > MaxRequestsCap:
		return fmt.Errorf("load step request bound %d must be in [0, %d]", s.MaxRequests, MaxRequestsCap)
	case s.Conns < 0 || s.Conns > MaxConns:
		return fmt.Errorf("load step connections %d must be in [0, %d]", s.Conns, MaxConns)
	case s.Drain < 0 || s.Drain > time.Minute:
		return fmt.Errorf("load step drain %v must be in [0, 1m]", s.Drain)
	}
	if !s.AllowRemote {
		for _, a := range s.Target.Addrs {
			if !IsLoopback(a.Addr()) {
				return fmt.Errorf("refusing to send load to %s: %w", a, ErrNotLoopback)
			}
		}
	}
	return nil
}

// Run performs the step. It returns an error only when the step could not
// run at all (bad parameters, no connection to the target could be opened);
// failed requests are counted in the Result.
func Run(ctx context.Context, s Step) (*Result, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	reqs := s.Requests
	if len(reqs) == 0 {
		r, err := BuildRequest(http.MethodGet, s.Target.URL, s.Header)
		if err != nil {
			return nil, err
		}
		reqs = [][]byte{r}
	}
	open := s.Rate > 0
	conns := s.Conns
	if conns == 0 {
		conns = 16
		if open {
			conns = 64
		}
	}
	maxReq := s.MaxRequests
	if maxReq == 0 {
		maxReq = MaxRequestsCap
		if open {
			maxReq = min(MaxRequestsCap, int64(math.Ceil(s.Rate*s.Duration.Seconds()))+1)
		}
	}
	if open {
		// A step never schedules past its duration.
		maxReq = min(maxReq, int64(math.Ceil(s.Rate*s.Duration.Seconds()))+1)
	}
	drain := s.Drain
	if drain == 0 {
		drain = 2 * time.Second
	}
	lateAfter := s.LateAfter
	if lateAfter <= 0 {
		lateAfter = time.Millisecond
	}

	r := &runner{step: s, reqs: reqs, conns: conns, maxReq: maxReq, open: open}
	r.dialer = net.Dialer{Timeout: time.Second}
	if !s.AllowRemote {
		r.dialer.Control = loopbackControl
	}

	// Open every connection before the clock starts, so connection setup
	// is not measured; a target that accepts none is an error.
	ws := make([]*worker, conns)
	var wg sync.WaitGroup
	dialErrs := make([]error, conns)
	for i := range ws {
		ws[i] = &worker{r: r, status: map[int]int64{}, lat: NewHistogram(), svc: NewHistogram()}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			dialErrs[i] = ws[i].connect(ctx)
		}(i)
	}
	wg.Wait()
	if err := errors.Join(dialErrs...); err != nil {
		connected := 0
		for _, e := range dialErrs {
			if e == nil {
				connected++
			}
		}
		if connected == 0 {
			for _, w := range ws {
				w.close()
			}
			return nil, fmt.Errorf("connecting to %s: %w; is the target listening?", s.Target.URL.Host, firstErr(dialErrs))
		}
	}

	cpu0, cpuOK := processCPU()
	r.start = time.Now()
	r.hardStop = r.start.Add(s.Duration + drain)
	for _, w := range ws {
		if w.conn != nil {
			_ = w.conn.nc.SetDeadline(r.hardStop)
		}
	}
	var pace paceStats
	if open {
		r.queue = make(chan int64, min(maxReq, 1<<16))
		for _, w := range ws {
			wg.Add(1)
			go func() { defer wg.Done(); w.runOpen(ctx) }()
		}
		pace = r.pace(ctx, lateAfter)
	} else {
		for _, w := range ws {
			wg.Add(1)
			go func() { defer wg.Done(); w.runClosed(ctx) }()
		}
	}
	wg.Wait()
	cpu1, _ := processCPU()
	for _, w := range ws {
		w.close()
	}

	res := &Result{Open: open, Rate: s.Rate, Duration: s.Duration, Status: map[int]int64{}, MaxBusy: int(r.maxBusy.Load())}
	var lats, svcs []*hdrhistogram.Histogram
	var last time.Duration
	for _, w := range ws {
		lats = append(lats, w.lat)
		svcs = append(svcs, w.svc)
		res.Sent += w.sent
		res.Responses += w.responses
		res.Errors += w.errs
		res.Unsent += w.unsent
		res.BodyBytes += w.body
		for k, v := range w.status {
			res.Status[k] += v
		}
		if res.FirstErr == "" && w.firstErr != nil {
			res.FirstErr = w.firstErr.Error()
		}
		last = max(last, w.last)
	}
	res.Latency, res.Service = Merge(lats...), Merge(svcs...)
	res.Elapsed = last
	if res.Elapsed <= 0 {
		res.Elapsed = time.Since(r.start)
	}
	if open {
		res.Scheduled = pace.scheduled
		res.Unsent += pace.dropped
	} else {
		res.Scheduled = res.Sent + res.Unsent
	}

	h := &res.Health
	h.RequestedRate = s.Rate
	h.LateAfter = lateAfter
	h.MaxLag, h.Late = pace.maxLag, pace.late
	if open && pace.span > 0 {
		h.DispatchRate = float64(pace.scheduled) / pace.span.Seconds()
	}
	h.ResponseRate = float64(res.Responses) / res.Elapsed.Seconds()
	h.CPUs = runtime.GOMAXPROCS(0)
	if cpuOK {
		if wall := time.Since(r.start); wall > 0 {
			h.CPU = (cpu1 - cpu0).Seconds() / wall.Seconds()
		}
	}
	switch {
	case open && pace.scheduled > 0 && float64(h.Late) > maxLateFraction*float64(pace.scheduled):
		h.Limited = true
		h.Reason = fmt.Sprintf("the generator dispatched %.1f%% of requests more than %v behind schedule (max lag %v)",
			100*float64(h.Late)/float64(pace.scheduled), lateAfter, h.MaxLag.Round(time.Microsecond))
	case cpuOK && h.CPU > maxCPUFraction*float64(h.CPUs):
		h.Limited = true
		h.Reason = fmt.Sprintf("the generator used %.2f of its %d CPU cores (over %.0f%%)", h.CPU, h.CPUs, 100*maxCPUFraction)
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, nil
}

func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// runner is the shared state of one step.
type runner struct {
	step     Step
	reqs     [][]byte
	conns    int
	maxReq   int64
	open     bool
	dialer   net.Dialer
	start    time.Time
	hardStop time.Time
	queue    chan int64   // open model: sequence numbers due now
	claimed  atomic.Int64 // closed model: requests claimed
	busy     atomic.Int32
	maxBusy  atomic.Int32
	nextAddr atomic.Uint32
}

// intended is the offset of request seq from the start of the schedule.
func (r *runner) intended(seq int64) time.Duration {
	return time.Duration(float64(seq) * 1e9 / r.step.Rate)
}

type paceStats struct {
	scheduled, dropped, late int64
	maxLag, span             time.Duration
}

// pace hands each request's sequence number to the workers at its
// intended time: a coarse sleep up to about a millisecond before, then the
// pacer's fine wait, then every request that is due, in one batch.
func (r *runner) pace(ctx context.Context, lateAfter time.Duration) paceStats {
	var st paceStats
	defer close(r.queue)
	p, _ := newPacer()
	defer p.close()
	done := ctx.Done()
	for seq := int64(0); seq < r.maxReq; seq++ {
		due := r.intended(seq)
		if due >= r.step.Duration {
			break
		}
		now := time.Since(r.start)
		if wait := due - now; wait > 0 {
			if wait > 2*time.Millisecond {
				t := time.NewTimer(wait - 1500*time.Microsecond)
				select {
				case <-t.C:
				case <-done:
					t.Stop()
					return st
				}
			}
			if err := p.wait(due - time.Since(r.start)); err != nil {
				p = sleepPacer{}
			}
			now = time.Since(r.start)
		}
		select {
		case <-done:
			return st
		default:
		}
		lag := now - due
		st.maxLag = max(st.maxLag, lag)
		if lag > lateAfter {
			st.late++
		}
		st.scheduled++
		st.span = now
		select {
		case r.queue <- seq:
		default:
			st.dropped++ // every connection busy and the backlog full
		}
	}
	st.span = max(st.span, min(r.step.Duration, time.Since(r.start)))
	return st
}

// worker owns one connection and its histograms.
type worker struct {
	r                  *runner
	conn               *clientConn
	lat, svc           *hdrhistogram.Histogram
	status             map[int]int64
	sent, responses    int64
	errs, unsent, body int64
	firstErr           error
	last               time.Duration
}

type clientConn struct {
	nc net.Conn
	br *bufio.Reader
}

func (w *worker) connect(ctx context.Context) error {
	r := w.r
	addrs := r.step.Target.Addrs
	var err error
	for range addrs {
		a := addrs[int(r.nextAddr.Add(1)-1)%len(addrs)]
		var nc net.Conn
		nc, err = r.dialer.DialContext(ctx, "tcp", a.String())
		if err == nil {
			if tc, ok := nc.(*net.TCPConn); ok {
				_ = tc.SetNoDelay(true)
			}
			if !r.hardStop.IsZero() {
				_ = nc.SetDeadline(r.hardStop)
			}
			w.conn = &clientConn{nc: nc, br: NewReader(nc)}
			return nil
		}
	}
	return err
}

func (w *worker) close() {
	if w.conn != nil {
		w.conn.nc.Close()
		w.conn = nil
	}
}

func (w *worker) fail(err error) {
	w.errs++
	if w.firstErr == nil {
		w.firstErr = err
	}
	w.close()
}

// do sends one request and reads its response. It returns the time the
// request was written and the time the response was complete.
func (w *worker) do(ctx context.Context, req []byte) (sent, done time.Time, ok bool) {
	if w.conn == nil {
		if err := w.connect(ctx); err != nil {
			w.fail(err)
			return time.Time{}, time.Time{}, false
		}
	}
	r := w.r
	b := r.busy.Add(1)
	for {
		m := r.maxBusy.Load()
		if b <= m || r.maxBusy.CompareAndSwap(m, b) {
			break
		}
	}
	defer r.busy.Add(-1)
	sent = time.Now()
	if _, err := w.conn.nc.Write(req); err != nil {
		w.fail(fmt.Errorf("writing a request: %w", err))
		return sent, time.Time{}, false
	}
	w.sent++
	resp, err := ReadResponse(w.conn.br, false)
	done = time.Now()
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = fmt.Errorf("no response by the end of the step's drain time: %w", err)
		}
		w.fail(fmt.Errorf("reading a response: %w", err))
		return sent, done, false
	}
	w.responses++
	w.body += resp.Body
	w.status[resp.Status]++
	if resp.Close {
		w.close()
	}
	return sent, done, true
}

func (w *worker) runOpen(ctx context.Context) {
	r := w.r
	for seq := range r.queue {
		if ctx.Err() != nil || time.Now().After(r.hardStop) {
			w.unsent++
			continue
		}
		req := r.reqs[int(seq%int64(len(r.reqs)))]
		sent, done, ok := w.do(ctx, req)
		if !ok {
			if sent.IsZero() {
				w.unsent++
			}
			continue
		}
		due := r.start.Add(r.intended(seq))
		record(w.lat, done.Sub(due))
		record(w.svc, done.Sub(sent))
		w.last = max(w.last, done.Sub(r.start))
	}
}

func (w *worker) runClosed(ctx context.Context) {
	r := w.r
	end := r.start.Add(r.step.Duration)
	backoff := time.Millisecond
	for ctx.Err() == nil {
		seq := r.claimed.Add(1) - 1
		if seq >= r.maxReq {
			return
		}
		if !time.Now().Before(end) {
			return
		}
		sent, done, ok := w.do(ctx, r.reqs[int(seq%int64(len(r.reqs)))])
		if !ok {
			if sent.IsZero() {
				w.unsent++
				time.Sleep(backoff) // the target refuses connections: do not spin
				backoff = min(2*backoff, 100*time.Millisecond)
			}
			continue
		}
		backoff = time.Millisecond
		record(w.lat, done.Sub(sent))
		record(w.svc, done.Sub(sent))
		w.last = max(w.last, done.Sub(r.start))
	}
}
