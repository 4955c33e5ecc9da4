package gateway

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// LogServer is a small HTTP service on 127.0.0.1 whose handler answers
// GET /order/<id> with a short JSON body and writes one request-log record
// (~170 bytes: time, method, path, status, bytes, duration, request id,
// user agent) through a LogWriter.
type LogServer struct {
	URL     string
	Handled atomic.Int64
	// LogTime is the time handlers spent in LogWriter.Log, in nanoseconds.
	LogTime atomic.Int64
	log     LogWriter
	srv     *http.Server
	seq     atomic.Uint64
}

// StartLogServer serves on a fresh loopback port until Close.
func StartLogServer(lw LogWriter) (*LogServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on loopback: %w", err)
	}
	s := &LogServer{URL: "http://" + ln.Addr().String(), log: lw}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

var jsonType = []string{"application/json"}

func (s *LogServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var body [160]byte
	b := append(body[:0], `{"id":"`...)
	b = append(b, r.URL.Path[min(len(r.URL.Path), len("/order/")):]...)
	b = append(b, `","status":"shipped","total":1999,"currency":"EUR","items":3}`...)
	w.Header()["Content-Type"] = jsonType
	w.Write(b)

	var rec [256]byte
	l := time.Now().UTC().AppendFormat(rec[:0], time.RFC3339Nano)
	l = append(l, ' ')
	l = append(l, r.Method...)
	l = append(l, ' ')
	l = append(l, r.URL.Path...)
	l = append(l, " 200 "...)
	l = strconv.AppendInt(l, int64(len(b)), 10)
	l = append(l, ' ')
	l = strconv.AppendInt(l, int64(time.Since(start)), 10)
	l = append(l, "ns rid="...)
	l = strconv.AppendUint(l, s.seq.Add(1), 36)
	l = append(l, " ua="...)
	l = append(l, r.UserAgent()...)
	l = append(l, '\n')
	t0 := time.Now()
	s.log.Log(l)
	s.LogTime.Add(int64(time.Since(t0)))
	s.Handled.Add(1)
}

// Close stops the server; the log writer stays open.
func (s *LogServer) Close() error { return s.srv.Close() }

// LineCounter counts the newline-terminated records written through it.
type LineCounter struct {
	W     io.Writer
	Lines int64
}

func (c *LineCounter) Write(p []byte) (int, error) {
	c.Lines += int64(bytes.Count(p, []byte{'\n'}))
	return c.W.Write(p)
}
