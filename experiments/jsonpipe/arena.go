//go:build goexperiment.arenas

package jsonpipe

import (
	"arena"
	"encoding/json"
	"unsafe"

	"github.com/tidwall/gjson"
)

func arenaVariants() []Variant {
	return []Variant{
		{Name: "arena", Stages: pooledStages, New: func() Pipeline { return new(arenaPipe) }},
		{Name: "arenamap", Stages: pooledStages, New: func() Pipeline { return new(arenaMapPipe) }},
		{Name: "arenatree", Stages: pooledStages, New: func() Pipeline { return new(arenaTreePipe) }},
	}
}

// eface is the layout of an interface value with no methods.
type eface struct{ typ, data unsafe.Pointer }

func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	floatType      = typeWord(float64(0))
	stringType     = typeWord("")
	sliceType      = typeWord([]any(nil))
	emptyArray any = []any{}
)

// box makes an interface value of type typ whose data word is data, so
// the boxed value can live in an arena instead of where the compiler's
// boxing would put it (the heap).
func box(typ, data unsafe.Pointer) (v any) {
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = typ, data
	return v
}

// arenaBuilder is build with every allocation Go lets an arena take: the
// boxed numbers, strings and slice headers, and the arrays' backing
// storage. Maps cannot be allocated in an arena; they stay on the heap.
type arenaBuilder struct{ a *arena.Arena }

func (b arenaBuilder) build(r gjson.Result) any {
	switch r.Type {
	case gjson.String:
		p := arena.New[string](b.a)
		*p = r.Str
		return box(stringType, unsafe.Pointer(p))
	case gjson.Number:
		p := arena.New[float64](b.a)
		*p = r.Num
		return box(floatType, unsafe.Pointer(p))
	case gjson.True:
		return true
	case gjson.False:
		return false
	case gjson.JSON:
		if r.IsObject() {
			m := make(map[string]any)
			r.ForEach(func(k, v gjson.Result) bool {
				m[k.Str] = b.build(v)
				return true
			})
			return m
		}
		var s []any
		r.ForEach(func(_, v gjson.Result) bool {
			if len(s) == cap(s) {
				n := arena.MakeSlice[any](b.a, len(s), max(4, 2*cap(s)))
				copy(n, s)
				s = n
			}
			s = append(s, b.build(v))
			return true
		})
		if len(s) == 0 {
			return emptyArray
		}
		p := arena.New[[]any](b.a)
		*p = s
		return box(sliceType, unsafe.Pointer(p))
	}
	return nil
}

// outChunk is the size of the output chunks an arena pipeline writes. The
// runtime places allocations above a quarter of its arena chunk size (2 MiB
// of 8 MiB on 64-bit platforms) on the heap instead, so the output is
// split into chunks that fit.
const outChunk = 512 << 10

// chunkWriter collects what it is written in arena-allocated chunks: the
// first of size first (when set), the rest of outChunk bytes.
type chunkWriter struct {
	a      *arena.Arena
	chunks [][]byte
	first  int
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if k := len(w.chunks); k == 0 || len(w.chunks[k-1]) == cap(w.chunks[k-1]) {
			if len(w.chunks) == cap(w.chunks) {
				c := arena.MakeSlice[[]byte](w.a, len(w.chunks), max(4, 2*cap(w.chunks)))
				copy(c, w.chunks)
				w.chunks = c
			}
			size := outChunk
			if len(w.chunks) == 0 && w.first > 0 {
				size = min(w.first, outChunk)
			}
			w.chunks = append(w.chunks, arena.MakeSlice[byte](w.a, 0, size))
		}
		last := &w.chunks[len(w.chunks)-1]
		c := copy((*last)[len(*last):cap(*last)], p)
		*last = (*last)[:len(*last)+c]
		p = p[c:]
	}
	return n, nil
}

// arenaCopy copies doc into a and returns the copy with a string over the
// same bytes, for gjson to read.
func arenaCopy(a *arena.Arena, doc []byte) ([]byte, string) {
	cp := arena.MakeSlice[byte](a, len(doc), len(doc))
	copy(cp, doc)
	if len(cp) == 0 {
		return cp, ""
	}
	return cp, unsafe.String(&cp[0], len(cp))
}

// arenaPipe uses a fresh arena per document for everything Go lets it
// hold: the document copy gjson reads, the boxed values and arrays of the
// tree, and the output chunks, the first sized for an output as long as the
// document. The arena is freed after the output is
// written. Maps (and what gjson and encoding/json allocate internally)
// stay on the heap.
type arenaPipe struct {
	probing bool
	probe   []Metric
}

func (p *arenaPipe) Run(doc []byte, m *Meter, sink func([][]byte)) error {
	m.start()
	if !gjson.ValidBytes(doc) {
		return ErrInvalid
	}
	a := arena.NewArena()
	cp, s := arenaCopy(a, doc)
	r := gjson.Parse(s)
	m.lap(Parse)
	v := arenaBuilder{a}.build(r)
	m.lap(Build)
	w := arena.New[chunkWriter](a)
	w.a, w.first = a, len(doc)+len(doc)/8+64 // the output is about as long as the document
	err := json.NewEncoder(w).Encode(v)
	m.lap(Marshal)
	if err == nil && sink != nil {
		sink(w.chunks)
	}
	if p.probing && len(cp) > 0 {
		out := 1.0
		for _, c := range w.chunks {
			if !inArena(unsafe.Pointer(unsafe.SliceData(c))) {
				out = 0
			}
		}
		p.probe = []Metric{{"doc-in-arena", b2f(inArena(unsafe.Pointer(&cp[0])))}, {"out-in-arena", out}}
	}
	a.Free()
	m.lap(Release)
	return err
}

// ProbeRun runs the pipeline once and reports where the arena placed the
// document copy and the output: 1 in an arena chunk, 0 on the heap.
func (p *arenaPipe) ProbeRun(doc []byte) ([]Metric, error) {
	p.probing = true
	defer func() { p.probing = false }()
	if !probeWorks() {
		return nil, errNoProbe
	}
	var m Meter
	err := p.Run(doc, &m, nil)
	return p.probe, err
}

// arenaMapPipe is the article's own arena code: the root map is created
// with arena.New[map[string]any] and make, as the article shows; the rest
// of the tree, the document copy and the output are as in heap.
type arenaMapPipe struct {
	out     [1][]byte
	probing bool
	probe   []Metric
}

func (p *arenaMapPipe) Run(doc []byte, m *Meter, sink func([][]byte)) error {
	m.start()
	if !gjson.ValidBytes(doc) {
		return ErrInvalid
	}
	// The arena is made in the parse stage, as the arena variant's is, so
	// the build stage times the conversion alone.
	a := arena.NewArena()
	r := gjson.ParseBytes(doc)
	m.lap(Parse)
	mp := arena.New[map[string]any](a)
	*mp = make(map[string]any)
	var v any
	if r.IsObject() {
		r.ForEach(func(k, val gjson.Result) bool {
			(*mp)[k.Str] = build(val)
			return true
		})
		v = *mp
	} else {
		v = build(r)
	}
	m.lap(Build)
	out, err := json.Marshal(v)
	m.lap(Marshal)
	if err == nil && sink != nil {
		sink(one(&p.out, out))
	}
	if p.probing {
		p.probe = probeMap(mp)
	}
	a.Free()
	m.lap(Release)
	return err
}

// ProbeRun runs the pipeline once and reports where the root map lives.
func (p *arenaMapPipe) ProbeRun(doc []byte) ([]Metric, error) {
	p.probing = true
	defer func() { p.probing = false }()
	if !probeWorks() {
		return nil, errNoProbe
	}
	var m Meter
	err := p.Run(doc, &m, nil)
	return p.probe, err
}

// inArena reports whether p points into a user arena chunk. arena.Clone
// returns a pointer unchanged unless it points into an arena, in which
// case it returns a heap copy; a one-byte type keeps the copy cheap.
func inArena(p unsafe.Pointer) bool {
	q := (*byte)(p)
	return arena.Clone(q) != q
}

// probeWorks checks inArena on a pointer known to be in an arena and one
// known to be on the heap.
func probeWorks() bool {
	a := arena.NewArena()
	defer a.Free()
	in := arena.New[[64]byte](a)
	heap := new([64]byte)
	keep = heap
	return inArena(unsafe.Pointer(in)) && !inArena(unsafe.Pointer(heap))
}

var keep *[64]byte

// swissMap mirrors the leading fields of the runtime's map header
// (internal/runtime/maps.Map, Go 1.24 and later): a map value is a
// pointer to it, and dirPtr points to the map's storage (its single group
// of slots, or its directory of tables).
type swissMap struct {
	used   uint64
	seed   uintptr
	dirPtr unsafe.Pointer
}

// probeMap says where the parts of an arena-created map live: the map
// variable arena.New returned (map-slot-in-arena), the header make
// allocated (map-header-in-arena) and its storage (map-buckets-in-arena).
// The storage is read through swissMap only when the header's count
// matches len(m), which confirms the layout on the running Go.
func probeMap(mp *map[string]any) []Metric {
	hdr := *(*unsafe.Pointer)(unsafe.Pointer(mp))
	ms := []Metric{
		{"map-slot-in-arena", b2f(inArena(unsafe.Pointer(mp)))},
		{"map-header-in-arena", b2f(hdr != nil && inArena(hdr))},
	}
	if hdr == nil {
		return ms
	}
	h := (*swissMap)(hdr)
	if h.used != uint64(len(*mp)) || h.dirPtr == nil {
		return ms
	}
	return append(ms, Metric{"map-buckets-in-arena", b2f(inArena(hdr) && inArena(h.dirPtr))})
}

// arenaAlloc takes every node, member slice and string copy from an
// arena.
type arenaAlloc struct{ a *arena.Arena }

func (al arenaAlloc) node() *tnode { return arena.New[tnode](al.a) }

func (al arenaAlloc) members(n, c int) []tmember { return arena.MakeSlice[tmember](al.a, n, c) }

func (al arenaAlloc) str(s string) string {
	_, c := arenaCopy(al.a, unsafe.Slice(unsafe.StringData(s), len(s)))
	return c
}

// arenaTreePipe is the article's parser with an arena (§2.4): a fresh
// arena per document holds the document copy gjson reads and, in the
// build stage, every node, member slice, key and string value of the
// tree; the output is written as treePipe writes it, and the arena is
// freed after.
type arenaTreePipe struct{ out [1][]byte }

func (p *arenaTreePipe) Run(doc []byte, m *Meter, sink func([][]byte)) error {
	m.start()
	if !gjson.ValidBytes(doc) {
		return ErrInvalid
	}
	a := arena.NewArena()
	_, s := arenaCopy(a, doc)
	r := gjson.Parse(s)
	m.lap(Parse)
	t := buildTree(arenaAlloc{a}, r)
	m.lap(Build)
	out := appendTree(make([]byte, 0, len(doc)), t)
	m.lap(Marshal)
	if sink != nil {
		sink(one(&p.out, out))
	}
	a.Free()
	m.lap(Release)
	return nil
}
