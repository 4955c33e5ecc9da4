package allocscale

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
)

// Request is one request of the logging service: the fields its log
// record is made of.
type Request struct {
	ID        uint64
	Method    string
	Path      string
	Status    int
	LatencyNS int64
	Bytes     int
	UserAgent string
	RemoteIP  string
	TraceID   string
	Message   string
}

// fieldCount is the number of keys a record's map holds.
const fieldCount = 10

// sizeHint is the capacity the pre-sized and arena variants give their
// buffers: more than any record NewRequest makes.
const sizeHint = 2048

// message is the bulk of every record, so that a record's JSON is about
// 1.4 KB, the article's size.
var message = func() string {
	var b bytes.Buffer
	for i := 0; b.Len() < 1150; i++ {
		b.WriteString("upstream=orders-")
		b.WriteString(strconv.Itoa(i % 7))
		b.WriteString(" cache=miss retry=0 shard=")
		b.WriteString(strconv.Itoa(i % 13))
		b.WriteString("; ")
	}
	return b.String()
}()

var methods = [...]string{"GET", "POST", "PUT", "DELETE"}

// NewRequest fills r with the deterministic request number id.
func NewRequest(r *Request, id uint64) {
	*r = Request{
		ID:        id,
		Method:    methods[id%4],
		Path:      "/order/" + strconv.FormatUint(id%100000, 10),
		Status:    200 + int(id%3)*100,
		LatencyNS: int64(id%9973) * 1000,
		Bytes:     int(id % 4096),
		UserAgent: "perflab-allocscale/1.0 (linux; amd64)",
		RemoteIP:  "10.0." + strconv.Itoa(int(id/256%256)) + "." + strconv.Itoa(int(id%256)),
		TraceID:   strconv.FormatUint(id*0x9E3779B97F4A7C15, 16),
		Message:   message,
	}
}

// fill writes r's fields into m, fieldCount keys.
func fill(m map[string]interface{}, r *Request) {
	m["id"] = r.ID
	m["method"] = r.Method
	m["path"] = r.Path
	m["status"] = r.Status
	m["latency_ns"] = r.LatencyNS
	m["bytes"] = r.Bytes
	m["user_agent"] = r.UserAgent
	m["remote_ip"] = r.RemoteIP
	m["trace_id"] = r.TraceID
	m["message"] = r.Message
}

// A Logger serialises a request's log record to JSON and writes it to w.
// Every variant writes the same bytes for the same request; the slice
// passed to w is valid only during the call. A Logger is safe for
// concurrent use.
type Logger interface {
	Log(r *Request, w io.Writer) error
}

// Variants lists the variant names in benchmark order.
var Variants = []string{"plain", "pooled", "presized", "arena"}

// ErrNeedsArenas is returned by NewLogger for the arena variant in a build
// without GOEXPERIMENT=arenas.
var ErrNeedsArenas = errors.New("the arena variant needs GOEXPERIMENT=arenas")

// NewLogger returns the named variant.
func NewLogger(variant string) (Logger, error) {
	switch variant {
	case "plain":
		return Plain{}, nil
	case "pooled":
		return Pooled{}, nil
	case "presized":
		return Presized{}, nil
	case "arena":
		return newArenaLogger()
	}
	return nil, errors.New("allocscale: unknown variant " + strconv.Quote(variant) + "; the variants are plain, pooled, presized and arena")
}

// Plain allocates everything per request: a map, an encoder writing into
// a new buffer, and a copy of the result (two ~1.4 KB byte slices and one
// map).
type Plain struct{}

// Log implements Logger.
func (Plain) Log(r *Request, w io.Writer) error {
	m := make(map[string]interface{})
	fill(m, r)
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(m); err != nil {
		return err
	}
	out := append([]byte(nil), buf.Bytes()...)
	_, err := w.Write(out)
	return err
}

// The pools of the article's fix.
var (
	bufferPool = sync.Pool{New: func() interface{} { return new(bytes.Buffer) }}
	mapPool    = sync.Pool{New: func() interface{} { return make(map[string]interface{}, fieldCount) }}
)

// Pooled is the article's fix (E2): the buffer and the map come from
// sync.Pools and go back after the request; the record is still copied out
// of the pooled buffer, as the article's fastJSONLog returns it.
type Pooled struct{}

// Log implements Logger.
func (Pooled) Log(r *Request, w io.Writer) error {
	m := mapPool.Get().(map[string]interface{})
	fill(m, r) // the same keys every time: every old value is overwritten
	b := bufferPool.Get().(*bytes.Buffer)
	b.Reset()
	err := json.NewEncoder(b).Encode(m)
	var out []byte
	if err == nil {
		out = append([]byte(nil), b.Bytes()...)
	}
	bufferPool.Put(b)
	mapPool.Put(m)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// Presized allocates per request like Plain, but sizes the map and the
// buffers up front, so none of them grows.
type Presized struct{}

// Log implements Logger.
func (Presized) Log(r *Request, w io.Writer) error {
	m := make(map[string]interface{}, fieldCount)
	fill(m, r)
	buf := bytes.NewBuffer(make([]byte, 0, sizeHint))
	if err := json.NewEncoder(buf).Encode(m); err != nil {
		return err
	}
	out := make([]byte, buf.Len())
	copy(out, buf.Bytes())
	_, err := w.Write(out)
	return err
}
