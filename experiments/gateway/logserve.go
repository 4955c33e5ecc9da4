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
// of about LogRecordSize bytes (time, method, path, status, bytes,
// duration, request id, user agent and a structured logger's context
// fields) through a LogWriter.
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

// LogRecordSize is about the length of one request-log record: article
// D's log stream is 1 MB/s (“性能对比(1MB/s 日志流)”), which 2,000
// requests a second make with records of 500 bytes.
const LogRecordSize = 520

// logContext is the context fields every record carries after the
// request's own, as a structured logger adds them: with them a record is
// about LogRecordSize bytes.
const logContext = " service=orders-api version=2.14.3 env=production region=eu-west-1 zone=eu-west-1b" +
	" host=orders-api-7f9c6d5b8-x2x9q pod_ip=10.42.17.203 tenant=acme-retail plan=enterprise" +
	" trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7 sampled=1" +
	" route=/order/{id} handler=orders.Get upstream=orders-db-primary cache=miss retries=0" +
	" tls=TLSv1.3 proto=HTTP/1.1 client=10.42.3.77 user=u-48213 session=s-9c1e2f07d3a4" +
	" flags=new-checkout,fast-tax"

func (s *LogServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var body [160]byte
	b := append(body[:0], `{"id":"`...)
	b = append(b, r.URL.Path[min(len(r.URL.Path), len("/order/")):]...)
	b = append(b, `","status":"shipped","total":1999,"currency":"EUR","items":3}`...)
	w.Header()["Content-Type"] = jsonType
	w.Write(b)

	var rec [LogRecordSize + 128]byte
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
	l = append(l, logContext...)
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
