package orders

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// middleware wraps a handler.
type middleware func(http.Handler) http.Handler

// chain applies mws so that the first is outermost.
func chain(h http.Handler, mws ...middleware) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

type ridKey struct{}

// requestID takes X-Request-Id from the request or makes one from the
// clock and a counter, and echoes it in the response.
func (s *server) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if id == "" {
			b := make([]byte, 0, 32)
			b = strconv.AppendInt(b, s.clock.Now().UnixNano(), 36)
			b = append(b, '-')
			b = strconv.AppendUint(b, s.reqSeq.Add(1), 36)
			id = string(b)
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ridKey{}, id)))
	})
}

// statusWriter records the status and body size a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// accessLog writes one line per request, synchronously, to the log file:
// timestamp, method, path, status, bytes, duration and request id.
func (s *server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := s.clock.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		id, _ := r.Context().Value(ridKey{}).(string)
		line := s.clock.AppendStamp(make([]byte, 0, 160))
		line = append(line, ' ')
		line = append(line, r.Method...)
		line = append(line, ' ')
		line = append(line, r.URL.Path...)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(sw.status), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(sw.bytes), 10)
		line = append(line, ' ')
		line = append(line, s.clock.Now().Sub(start).String()...)
		line = append(line, ' ')
		line = append(line, id...)
		line = append(line, '\n')
		s.logMu.Lock()
		_, _ = s.log.Write(line)
		s.logMu.Unlock()
	})
}

// recovery turns a panic in a handler into a 500 response.
func (s *server) recovery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.panics.Add(1)
				http.Error(w, "internal server error", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// latencyBuckets are the upper bounds of the metrics middleware's histogram.
var latencyBuckets = []time.Duration{
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond, time.Millisecond,
	2500 * time.Microsecond, 5 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond,
	50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, time.Second,
}

// requestMetrics counts requests by status class and latency bucket.
type requestMetrics struct {
	byClass [6]atomic.Int64
	buckets [13]atomic.Int64
}

func (m *requestMetrics) observe(status int, d time.Duration) {
	if c := status / 100; c >= 0 && c < len(m.byClass) {
		m.byClass[c].Add(1)
	}
	i := 0
	for i < len(latencyBuckets) && d > latencyBuckets[i] {
		i++
	}
	m.buckets[i].Add(1)
}

// metrics records every request's status and latency.
func (s *server) metrics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := s.clock.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		s.reqMetrics.observe(sw.status, s.clock.Now().Sub(start))
	})
}

// auth requires "Authorization: Bearer <token>".
func (s *server) auth(next http.Handler) http.Handler {
	want := []byte("Bearer " + s.cfg.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		if subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="orders"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// cors answers preflight requests and labels responses for browsers.
func (s *server) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, X-Request-Id")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// timeout bounds each request's context.
func (s *server) timeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
