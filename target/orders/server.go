package orders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"runtime/metrics"
	rpprof "runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"
	"golang.org/x/time/rate"
)

// Config says how to run the service.
type Config struct {
	Profile  Profile
	Addr     string        // service address; default 127.0.0.1:0 (a free port)
	SideAddr string        // pprof, metrics and control address; default 127.0.0.1:0
	DBPath   string        // order database; default DefaultDBPath()
	Log      io.Writer     // access log destination; default a file in the temp dir, removed on exit
	Token    string        // bearer token the auth middleware wants; default "perflab"
	Timeout  time.Duration // request timeout of the timeout middleware; default 2s
	// Guard, when positive, starts the service with the overload guard on:
	// a token bucket of Guard requests per second and a circuit breaker
	// around the DB call. It can be switched at run time on the side port.
	Guard float64
	// Ready is called once both listeners accept connections.
	Ready func(addr, side net.Addr)
}

// DefaultToken is the bearer token the service accepts unless configured.
const DefaultToken = "perflab"

// Metrics is what GET /debug/perflab/metrics on the side port returns: the
// service's counters and runtime metrics since it started.
type Metrics struct {
	Profile     string   `json:"profile"`
	Codec       string   `json:"codec"`
	GOMAXPROCS  int      `json:"gomaxprocs"`
	Requests    int64    `json:"requests"`     // responses written by the service's handlers
	ByClass     [6]int64 `json:"by_class"`     // the same, by status class (index 2 = 2xx …)
	Limited     int64    `json:"limited"`      // 429 responses from the token bucket
	BreakerOpen int64    `json:"breaker_open"` // 503 responses from the circuit breaker
	Panics      int64    `json:"panics"`
	CPUSeconds  float64  `json:"cpu_seconds"` // user + system CPU time of the process
	AllocBytes  uint64   `json:"alloc_bytes"` // cumulative heap allocation
	AllocObjs   uint64   `json:"alloc_objects"`
	GCCycles    uint64   `json:"gc_cycles"`
	Goroutines  int      `json:"goroutines"`
	DBOpen      int      `json:"db_open"`            // open DB connections now
	DBWaitCount int64    `json:"db_wait_count"`      // waits for a DB connection
	DBWaitSec   float64  `json:"db_wait_seconds"`    // total time waited for DB connections
	DBIdleClose int64    `json:"db_idle_closed"`     // connections closed for exceeding the idle limit
	DBLifeClose int64    `json:"db_lifetime_closed"` // connections closed for exceeding their lifetime
	Guard       float64  `json:"guard"`              // token bucket rate, 0 when the guard is off
}

type guard struct {
	rate    float64
	limiter *rate.Limiter
	breaker *gobreaker.CircuitBreaker[*Order]
}

type server struct {
	cfg        Config
	store      *Store
	codec      Codec
	clock      clock
	log        io.Writer
	logMu      sync.Mutex
	reqSeq     atomic.Uint64
	panics     atomic.Int64
	reqMetrics requestMetrics
	byClass    [6]atomic.Int64
	limited    atomic.Int64
	open       atomic.Int64
	guard      atomic.Pointer[guard]
	constBody  []byte
	doc        Order
	docCodecs  map[string]error // nil error: the codec encodes correctly
}

// Serve runs the service until ctx is done. It seeds the database on first
// use (see EnsureDB), checks that the profile's JSON codec encodes orders
// exactly as encoding/json does, and listens on cfg.Addr for the service
// and cfg.SideAddr for net/http/pprof, metrics and the guard switch.
func Serve(ctx context.Context, cfg Config) error {
	if cfg.Profile.Name == "" {
		cfg.Profile = Profiles[0]
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.SideAddr == "" {
		cfg.SideAddr = "127.0.0.1:0"
	}
	if cfg.Token == "" {
		cfg.Token = DefaultToken
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	if cfg.DBPath == "" {
		p, err := DefaultDBPath()
		if err != nil {
			return err
		}
		cfg.DBPath = p
	}
	if err := EnsureDB(ctx, cfg.DBPath); err != nil {
		return err
	}
	codec, err := CodecByName(cfg.Profile.Codec)
	if err != nil {
		return err
	}
	if err := CheckCodec(codec); err != nil {
		return fmt.Errorf("refusing to serve with an incorrect JSON codec: %w", err)
	}
	store, err := OpenStore(ctx, cfg.DBPath, cfg.Profile.SizedPool, runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	defer store.Close()

	s := &server{cfg: cfg, store: store, codec: codec, doc: genOrder(42), docCodecs: map[string]error{}}
	for _, c := range Codecs {
		s.docCodecs[c.Name] = CheckCodec(c)
	}
	if cfg.Profile.CachedClock {
		cc := newCachedClock()
		defer cc.Close()
		s.clock = cc
	} else {
		s.clock = sysClock{}
	}
	s.log = cfg.Log
	if s.log == nil {
		f, err := os.CreateTemp("", "perflab-orders-access-*.log")
		if err != nil {
			return fmt.Errorf("creating the access log: %w", err)
		}
		// Unlinked at once where the system allows an open file to be
		// removed, so a killed server leaves no file behind.
		removed := os.Remove(f.Name()) == nil
		defer func() {
			f.Close()
			if !removed {
				os.Remove(f.Name())
			}
		}()
		s.log = f
	}
	if s.constBody, err = codec.Marshal(&s.doc); err != nil {
		return err
	}
	if cfg.Guard > 0 {
		s.setGuard(cfg.Guard)
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.Addr, err)
	}
	sideLn, err := net.Listen("tcp", cfg.SideAddr)
	if err != nil {
		ln.Close()
		return fmt.Errorf("listening on %s for pprof and metrics: %w", cfg.SideAddr, err)
	}
	main := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	side := &http.Server{Handler: s.sideHandler(), ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 2)
	go func() { errc <- main.Serve(ln) }()
	go func() { errc <- side.Serve(sideLn) }()
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr(), sideLn.Addr())
	}
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_ = main.Shutdown(sctx)
	_ = side.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// handler is the service: GET /order/{id} and GET /doc/{codec} behind the
// profile's middleware chain.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	if s.cfg.Profile.Constant {
		mux.HandleFunc("GET /order/{id}", s.constant)
	} else {
		mux.HandleFunc("GET /order/{id}", s.getOrder)
	}
	mux.HandleFunc("GET /doc/{codec}", s.getDoc)
	if s.cfg.Profile.LeanChain {
		return chain(mux, s.limit, s.requestID, s.auth)
	}
	return chain(mux, s.limit, s.requestID, s.accessLog, s.recovery, s.metrics, s.auth, s.cors, s.timeout)
}

// limit is the guard's token bucket, in front of every other middleware so
// that a shed request costs as little as possible. It passes everything
// while the guard is off.
func (s *server) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g := s.guard.Load(); g != nil && !g.limiter.Allow() {
			s.limited.Add(1)
			w.Header().Set("Retry-After", "1")
			s.fail(w, "rate limited", http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *server) count(status int) {
	if c := status / 100; c >= 0 && c < len(s.byClass) {
		s.byClass[c].Add(1)
	}
}

func (s *server) fail(w http.ResponseWriter, msg string, status int) {
	s.count(status)
	http.Error(w, msg, status)
}

func (s *server) writeJSON(w http.ResponseWriter, b []byte) {
	s.count(http.StatusOK)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

func (s *server) getOrder(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		s.fail(w, "order id must be a positive integer", http.StatusNotFound)
		return
	}
	var o *Order
	if g := s.guard.Load(); g != nil {
		o, err = g.breaker.Execute(func() (*Order, error) {
			ctx, cancel := context.WithTimeout(r.Context(), 100*time.Millisecond)
			defer cancel()
			return s.store.Get(ctx, id)
		})
		if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
			s.open.Add(1)
			w.Header().Set("Retry-After", "1")
			s.fail(w, "database circuit open", http.StatusServiceUnavailable)
			return
		}
	} else {
		o, err = s.store.Get(r.Context(), id)
	}
	switch {
	case errors.Is(err, ErrNotFound):
		s.fail(w, "no such order", http.StatusNotFound)
		return
	case errors.Is(err, context.DeadlineExceeded):
		s.fail(w, "database timeout", http.StatusGatewayTimeout)
		return
	case err != nil:
		s.fail(w, "database error", http.StatusInternalServerError)
		return
	}
	b, err := s.codec.Marshal(o)
	if err != nil {
		s.fail(w, "encoding error", http.StatusInternalServerError)
		return
	}
	s.writeJSON(w, b)
}

// constant is the ceiling profile's handler: the same document for every id.
func (s *server) constant(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, s.constBody)
}

// getDoc serves one fixed ~1.2 KB order encoded per request with the named
// codec, for comparing JSON libraries; a codec whose output differs from
// encoding/json is refused.
func (s *server) getDoc(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("codec")
	c, err := CodecByName(name)
	if err != nil {
		s.fail(w, err.Error(), http.StatusNotFound)
		return
	}
	if err := s.docCodecs[name]; err != nil {
		s.fail(w, "incorrect codec: "+err.Error(), http.StatusInternalServerError)
		return
	}
	b, err := c.Marshal(&s.doc)
	if err != nil {
		s.fail(w, "encoding error", http.StatusInternalServerError)
		return
	}
	s.writeJSON(w, b)
}

func (s *server) setGuard(r float64) {
	if r <= 0 {
		s.guard.Store(nil)
		return
	}
	st := gobreaker.Settings{
		Name:        "orders-db",
		MaxRequests: 10,
		Interval:    time.Second,
		Timeout:     250 * time.Millisecond,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			return c.Requests >= 20 && float64(c.TotalFailures) >= 0.5*float64(c.Requests)
		},
		IsSuccessful: func(err error) bool { return err == nil || errors.Is(err, ErrNotFound) },
	}
	s.guard.Store(&guard{
		rate:    r,
		limiter: rate.NewLimiter(rate.Limit(r), max(1, int(r/100))),
		breaker: gobreaker.NewCircuitBreaker[*Order](st),
	})
}

// sideHandler serves net/http/pprof under /debug/pprof/, the service's
// metrics, a CPU profile of a chosen length and rate, and the guard switch.
func (s *server) sideHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("GET /debug/perflab/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.metricsNow())
	})
	mux.HandleFunc("GET /debug/perflab/cpuprofile", s.cpuProfile)
	mux.HandleFunc("POST /debug/perflab/guard", func(w http.ResponseWriter, r *http.Request) {
		v, err := strconv.ParseFloat(r.FormValue("rate"), 64)
		if err != nil || v < 0 || v > 1e8 {
			http.Error(w, "rate must be a number of requests per second (0 turns the guard off)", http.StatusBadRequest)
			return
		}
		s.setGuard(v)
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

// cpuProfile writes a CPU profile of ms milliseconds sampled at hz
// (default 1000), since /debug/pprof/profile takes whole seconds at 100 Hz.
func (s *server) cpuProfile(w http.ResponseWriter, r *http.Request) {
	ms, err := strconv.Atoi(r.FormValue("ms"))
	if err != nil || ms < 10 || ms > 60_000 {
		http.Error(w, "ms must be a number of milliseconds between 10 and 60000", http.StatusBadRequest)
		return
	}
	hz := 1000
	if v := r.FormValue("hz"); v != "" {
		if hz, err = strconv.Atoi(v); err != nil || hz < 10 || hz > 10_000 {
			http.Error(w, "hz must be between 10 and 10000", http.StatusBadRequest)
			return
		}
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	// SetCPUProfileRate before StartCPUProfile keeps the chosen rate (the
	// runtime then prints a warning that StartCPUProfile's own 100 Hz was
	// not applied).
	runtime.SetCPUProfileRate(hz)
	if err := rpprof.StartCPUProfile(w); err != nil {
		runtime.SetCPUProfileRate(0)
		http.Error(w, "a CPU profile is already running: "+err.Error(), http.StatusConflict)
		return
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	select {
	case <-t.C:
	case <-r.Context().Done():
		t.Stop()
	}
	rpprof.StopCPUProfile()
}

var metricNames = []string{"/gc/heap/allocs:bytes", "/gc/heap/allocs:objects", "/gc/cycles/total:gc-cycles"}

func (s *server) metricsNow() Metrics {
	m := Metrics{Profile: s.cfg.Profile.Name, Codec: s.codec.Name, GOMAXPROCS: runtime.GOMAXPROCS(0)}
	for i := range s.byClass {
		m.ByClass[i] = s.byClass[i].Load()
		m.Requests += m.ByClass[i]
	}
	m.Limited, m.BreakerOpen, m.Panics = s.limited.Load(), s.open.Load(), s.panics.Load()
	m.CPUSeconds = cpuSeconds()
	samples := make([]metrics.Sample, len(metricNames))
	for i, n := range metricNames {
		samples[i].Name = n
	}
	metrics.Read(samples)
	get := func(i int) uint64 {
		if samples[i].Value.Kind() == metrics.KindUint64 {
			return samples[i].Value.Uint64()
		}
		return 0
	}
	m.AllocBytes, m.AllocObjs, m.GCCycles = get(0), get(1), get(2)
	m.Goroutines = runtime.NumGoroutine()
	st := s.store.db.Stats()
	m.DBOpen, m.DBWaitCount, m.DBWaitSec = st.OpenConnections, st.WaitCount, st.WaitDuration.Seconds()
	m.DBIdleClose, m.DBLifeClose = st.MaxIdleClosed, st.MaxLifetimeClosed
	if g := s.guard.Load(); g != nil {
		m.Guard = g.rate
	}
	return m
}
