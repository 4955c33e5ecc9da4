package jsonpipe

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Stage is one step of the pipeline.
type Stage int

// The stages, in the order a pipeline runs them.
const (
	Parse   Stage = iota // validate the document and hand it to gjson
	Build                // walk the gjson result into map[string]any (gjson parses lazily, so the walk is where values are read)
	Marshal              // write the output JSON
	Release              // give memory back: arena.Free, sync.Pool.Put
	NumStages
)

var stageNames = [NumStages]string{"parse", "build", "marshal", "release"}

func (s Stage) String() string {
	if s < 0 || s >= NumStages {
		return "stage(" + strconv.Itoa(int(s)) + ")"
	}
	return stageNames[s]
}

// Meter records how long each stage of one Run took; when CountAllocs is
// set, how many heap allocations it made (runtime.MemStats.Mallocs, which
// stops the world: only for untimed runs); and when CountGC is set, how
// many GC cycles completed while it ran (runtime/metrics
// /gc/cycles/total:gc-cycles). Neither count's reading is in the stage
// times: each is taken after a stage's clock stops and before the next
// one's starts.
type Meter struct {
	Time        [NumStages]time.Duration
	Allocs      [NumStages]uint64
	GCs         [NumStages]uint64
	CountAllocs bool
	CountGC     bool

	last    time.Time
	mallocs uint64
	ms      runtime.MemStats
	gc      [1]metrics.Sample
	cycles  uint64
}

func (m *Meter) start() {
	m.Time, m.Allocs, m.GCs = [NumStages]time.Duration{}, [NumStages]uint64{}, [NumStages]uint64{}
	if m.CountAllocs {
		runtime.ReadMemStats(&m.ms)
		m.mallocs = m.ms.Mallocs
	}
	if m.CountGC {
		m.cycles = m.gcCycles()
	}
	m.last = time.Now()
}

func (m *Meter) lap(s Stage) {
	now := time.Now()
	m.Time[s] = now.Sub(m.last)
	if m.CountAllocs {
		runtime.ReadMemStats(&m.ms)
		m.Allocs[s] = m.ms.Mallocs - m.mallocs
		m.mallocs = m.ms.Mallocs
	}
	if m.CountGC {
		c := m.gcCycles()
		m.GCs[s] = c - m.cycles
		m.cycles = c
	}
	if m.CountAllocs || m.CountGC {
		now = time.Now()
	}
	m.last = now
}

// gcCycles reads the number of GC cycles completed so far; 0 when the
// runtime does not report it.
func (m *Meter) gcCycles() uint64 {
	m.gc[0].Name = gcCyclesMetric
	metrics.Read(m.gc[:])
	if m.gc[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return m.gc[0].Value.Uint64()
}

const gcCyclesMetric = "/gc/cycles/total:gc-cycles"

// Total is the sum of the stage times.
func (m *Meter) Total() time.Duration {
	var t time.Duration
	for _, d := range m.Time {
		t += d
	}
	return t
}

// A Pipeline turns a JSON document into the same JSON value re-encoded:
// gjson parse → build → marshal, in one variant's way.
type Pipeline interface {
	// Run processes doc once, recording the stage times in m. When sink
	// is non-nil it receives the output, as one or more byte chunks to be
	// read in order, before memory is released; the chunks must not be
	// kept after sink returns.
	Run(doc []byte, m *Meter, sink func(out [][]byte)) error
}

// Variant is one way of running the pipeline.
type Variant struct {
	Name   string
	Stages []Stage // the stages it reports
	// NotApplicable says why the variant cannot run in this build (it
	// needs another GOEXPERIMENT); "" when it can.
	NotApplicable string
	New           func() Pipeline // nil when NotApplicable is set
}

var (
	mapStages    = []Stage{Parse, Build, Marshal}
	pooledStages = []Stage{Parse, Build, Marshal, Release}
	directStages = []Stage{Parse, Marshal}
)

// Variants lists every variant, in benchmark order. Those this build
// cannot run carry NotApplicable.
func Variants() []Variant {
	vs := []Variant{
		{Name: "heap", Stages: mapStages, New: func() Pipeline { return new(heapPipe) }},
		{Name: "pooled", Stages: pooledStages, New: func() Pipeline { return new(pooledPipe) }},
		{Name: "direct", Stages: directStages, New: func() Pipeline { return new(directPipe) }},
		{Name: "tree", Stages: mapStages, New: func() Pipeline { return new(treePipe) }},
	}
	vs = append(vs, arenaVariants()...)
	return append(vs, jsonv2Variant())
}

// ErrInvalid is returned for a document gjson does not accept as JSON.
var ErrInvalid = errors.New("jsonpipe: input is not valid JSON (gjson.ValidBytes rejected it); check the document")

// build is the map pipeline's build stage on the heap: objects become
// map[string]any, arrays []any, numbers float64, as encoding/json decodes.
func build(r gjson.Result) any {
	switch r.Type {
	case gjson.String:
		return r.Str
	case gjson.Number:
		return r.Num
	case gjson.True:
		return true
	case gjson.False:
		return false
	case gjson.JSON:
		if r.IsObject() {
			m := make(map[string]any)
			r.ForEach(func(k, v gjson.Result) bool {
				m[k.Str] = build(v)
				return true
			})
			return m
		}
		a := []any{}
		r.ForEach(func(_, v gjson.Result) bool {
			a = append(a, build(v))
			return true
		})
		return a
	}
	return nil
}

// one wraps a single output buffer for a sink.
func one(p *[1][]byte, b []byte) [][]byte {
	p[0] = b
	return p[:]
}

// heapPipe is the article's pipeline with default allocation:
// gjson.ParseBytes (which copies the document into a string), a fresh
// map tree, json.Marshal (or marshal, when set).
type heapPipe struct {
	out     [1][]byte
	marshal func(any) ([]byte, error) // nil: encoding/json
}

func (p *heapPipe) Run(doc []byte, m *Meter, sink func([][]byte)) error {
	m.start()
	if !gjson.ValidBytes(doc) {
		return ErrInvalid
	}
	r := gjson.ParseBytes(doc)
	m.lap(Parse)
	v := build(r)
	m.lap(Build)
	marshal := p.marshal
	if marshal == nil {
		marshal = json.Marshal
	}
	out, err := marshal(v)
	m.lap(Marshal)
	if err != nil {
		return err
	}
	if sink != nil {
		sink(one(&p.out, out))
	}
	return nil
}

// Buffer pools shared by the pooled and direct variants.
var (
	docPool = sync.Pool{New: func() any { return new([]byte) }}
	outPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// pooledCopy copies doc into a pooled buffer and returns it with a string
// over the same bytes: what ParseBytes allocates afresh each time.
func pooledCopy(doc []byte) (*[]byte, string) {
	bp := docPool.Get().(*[]byte)
	*bp = append((*bp)[:0], doc...)
	if len(*bp) == 0 {
		return bp, ""
	}
	return bp, unsafe.String(&(*bp)[0], len(*bp))
}

// pooledPipe keeps the map tree but takes the document copy and the output
// buffer from sync.Pools. The map's strings alias the pooled copy, so the
// copy goes back to the pool only after the output is written.
type pooledPipe struct{ out [1][]byte }

func (p *pooledPipe) Run(doc []byte, m *Meter, sink func([][]byte)) error {
	m.start()
	if !gjson.ValidBytes(doc) {
		return ErrInvalid
	}
	bp, s := pooledCopy(doc)
	r := gjson.Parse(s)
	m.lap(Parse)
	v := build(r)
	m.lap(Build)
	buf := outPool.Get().(*bytes.Buffer)
	buf.Reset()
	err := json.NewEncoder(buf).Encode(v)
	m.lap(Marshal)
	if err == nil && sink != nil {
		sink(one(&p.out, buf.Bytes()))
	}
	outPool.Put(buf)
	docPool.Put(bp)
	m.lap(Release)
	return err
}

// directPipe skips the intermediate map: it walks the gjson result and
// appends each value to the output as it goes (keys, strings and numbers
// are copied in their JSON form). Everything else is as in heap: the
// document is copied by gjson.ParseBytes and the output is a fresh slice,
// as json.Marshal's is.
type directPipe struct{ out [1][]byte }

func (p *directPipe) Run(doc []byte, m *Meter, sink func([][]byte)) error {
	m.start()
	if !gjson.ValidBytes(doc) {
		return ErrInvalid
	}
	r := gjson.ParseBytes(doc)
	m.lap(Parse)
	out := appendDirect(make([]byte, 0, len(doc)), r)
	m.lap(Marshal)
	if sink != nil {
		sink(one(&p.out, out))
	}
	return nil
}

// appendDirect writes r to dst as compact JSON without building values.
func appendDirect(dst []byte, r gjson.Result) []byte {
	switch r.Type {
	case gjson.JSON:
		obj := r.IsObject()
		open, end := byte('['), byte(']')
		if obj {
			open, end = '{', '}'
		}
		dst = append(dst, open)
		first := true
		r.ForEach(func(k, v gjson.Result) bool {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			if obj {
				dst = append(dst, k.Raw...)
				dst = append(dst, ':')
			}
			dst = appendDirect(dst, v)
			return true
		})
		return append(dst, end)
	}
	return append(dst, r.Raw...)
}
