//go:build goexperiment.arenas

package jsonpipe

import "testing"

func metricsOf(ms []Metric) map[string]float64 {
	out := map[string]float64{}
	for _, m := range ms {
		out[m.Unit] = m.Value
	}
	return out
}

// TestProbeArenaMap: arena.New puts the map variable in the arena; make
// puts the map itself on the heap. The probe must see both.
func TestProbeArenaMap(t *testing.T) {
	if !probeWorks() {
		t.Skip(errNoProbe)
	}
	d, err := Generate(Seed, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := new(arenaMapPipe).ProbeRun(d.JSON)
	if err != nil {
		t.Fatal(err)
	}
	got := metricsOf(ms)
	want := map[string]float64{"map-slot-in-arena": 1, "map-header-in-arena": 0, "map-buckets-in-arena": 0}
	for unit, v := range want {
		g, ok := got[unit]
		if !ok {
			t.Errorf("probe did not report %s (got %v)", unit, got)
		} else if g != v {
			t.Errorf("%s = %v, want %v on this Go", unit, g, v)
		}
	}
}

// TestProbeArenaBuffers: a document copy that fits an arena chunk's
// allocation limit lands in the arena; one above it goes to the heap. The
// output is written in chunks that always fit.
func TestProbeArenaBuffers(t *testing.T) {
	if !probeWorks() {
		t.Skip(errNoProbe)
	}
	for _, tt := range []struct {
		size int
		doc  float64
	}{{64 << 10, 1}, {5 << 20, 0}} {
		if tt.size > 1<<20 && testing.Short() {
			continue
		}
		d, err := Generate(Seed, tt.size)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := new(arenaPipe).ProbeRun(d.JSON)
		if err != nil {
			t.Fatal(err)
		}
		got := metricsOf(ms)
		if got["doc-in-arena"] != tt.doc || got["out-in-arena"] != 1 {
			t.Errorf("size %d: probe %v, want doc-in-arena %v and out-in-arena 1", tt.size, got, tt.doc)
		}
	}
}

// TestInArena checks the probe's primitive directly.
func TestInArena(t *testing.T) {
	if !probeWorks() {
		t.Fatal("inArena does not tell an arena pointer from a heap pointer")
	}
}

// TestChunkWriter: writes of any size come back in order, and no chunk
// exceeds outChunk.
func TestChunkWriter(t *testing.T) {
	if !probeWorks() {
		t.Skip(errNoProbe)
	}
	d, err := Generate(2, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var m Meter
	p := new(arenaPipe)
	var total int
	if err := p.Run(d.JSON, &m, func(chunks [][]byte) {
		for _, c := range chunks {
			if len(c) > outChunk {
				t.Errorf("chunk of %d bytes > %d", len(c), outChunk)
			}
			total += len(c)
		}
		if len(chunks) < 2 {
			t.Errorf("1 MiB output in %d chunks, want several", len(chunks))
		}
	}); err != nil {
		t.Fatal(err)
	}
	if total < len(d.JSON)/2 {
		t.Errorf("output of %d bytes for a %d-byte document", total, len(d.JSON))
	}
}

// TestArenaTreeBuildAllocs: the arena tree's build stage takes every
// node, key and value from the arena, so the heap sees no allocation in
// it, while the heap tree's build stage allocates for each of them.
func TestArenaTreeBuildAllocs(t *testing.T) {
	d, err := Generate(Seed, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	count := func(p Pipeline) uint64 {
		m := Meter{CountAllocs: true}
		var most uint64
		for range 5 {
			if err := p.Run(d.JSON, &m, nil); err != nil {
				t.Fatal(err)
			}
			most = max(most, m.Allocs[Build])
		}
		return most
	}
	if n := count(new(arenaTreePipe)); n != 0 {
		t.Errorf("arenatree's build stage made %d heap allocations, want 0", n)
	}
	if n := count(new(treePipe)); n < 10 {
		t.Errorf("tree's build stage made %d heap allocations; a 1 KiB document has more nodes than that", n)
	}
}
