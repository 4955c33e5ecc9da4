package poolreuse

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

type obj = [64]byte

// poolCase builds one fresh pool under test.
type poolCase struct {
	name string
	new  func() Pool[obj]
	// reuses says whether a Put object can come back from Get.
	reuses bool
}

var poolCases = []poolCase{
	{"plain", func() Pool[obj] { return Plain[obj]{} }, false},
	{"syncpool", func() Pool[obj] { return &SyncPool[obj]{} }, true},
	{"syncpool-zero", func() Pool[obj] { return new(SyncPool[obj]) }, true},
	{"tiered", func() Pool[obj] { return NewTiered[obj]() }, true},
	{"tiered-zero", func() Pool[obj] { return new(Tiered[obj]) }, true},
	{"freelist", func() Pool[obj] { return NewFreeList[obj](64) }, true},
	{"freelist-small", func() Pool[obj] { return NewFreeList[obj](2) }, true},
	{"freelist-empty", func() Pool[obj] { return NewFreeList[obj](0) }, false},
	{"freelist-zero", func() Pool[obj] { return new(FreeList[obj]) }, false},
}

// liveSet records the objects currently handed out and fails on an object
// handed out twice.
type liveSet struct {
	mu   sync.Mutex
	live map[*obj]int // owner id
}

func newLiveSet() *liveSet { return &liveSet{live: make(map[*obj]int)} }

func (s *liveSet) add(p *obj, owner int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p == nil {
		return fmt.Errorf("Get returned nil")
	}
	if o, dup := s.live[p]; dup {
		return fmt.Errorf("object %p handed to owner %d while owner %d still holds it", p, owner, o)
	}
	s.live[p] = owner
	return nil
}

func (s *liveSet) remove(p *obj) {
	s.mu.Lock()
	delete(s.live, p)
	s.mu.Unlock()
}

// TestDistinctSerial checks, in one goroutine, that no pool hands out an
// object that is still held, across patterns of holding, putting and
// dropping.
func TestDistinctSerial(t *testing.T) {
	patterns := []struct {
		name string
		hold int // objects held at once
		put  int // out of every 4 released objects, how many are Put
	}{
		{"hold1-putall", 1, 4},
		{"hold8-putall", 8, 4},
		{"hold100-puthalf", 100, 2},
		{"hold3-putnone", 3, 0},
		{"hold200-put3of4", 200, 3},
	}
	for _, pc := range poolCases {
		for _, pat := range patterns {
			t.Run(pc.name+"/"+pat.name, func(t *testing.T) {
				pool := pc.new()
				live := newLiveSet()
				var held []*obj
				released := 0
				for range 2000 {
					p, _ := pool.Get()
					if err := live.add(p, 0); err != nil {
						t.Fatal(err)
					}
					held = append(held, p)
					if len(held) > pat.hold {
						q := held[0]
						held = held[1:]
						live.remove(q)
						if released%4 < pat.put {
							pool.Put(q)
						}
						released++
					}
				}
			})
		}
	}
}

// TestDistinctConcurrent checks that no pool hands the same object to two
// goroutines at once: 8 goroutines × 10k operations. Run it with -race.
func TestDistinctConcurrent(t *testing.T) {
	const goroutines, ops = 8, 10_000
	for _, pc := range poolCases {
		t.Run(pc.name, func(t *testing.T) {
			pool := pc.new()
			live := newLiveSet()
			errc := make(chan error, goroutines)
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					var held []*obj
					for i := range ops {
						p, _ := pool.Get()
						if err := live.add(p, g); err != nil {
							errc <- err
							return
						}
						// Writes and reads make sharing visible to -race.
						p[0] = byte(g)
						p[63] = byte(i)
						if p[0] != byte(g) {
							errc <- fmt.Errorf("goroutine %d: object %p changed under it", g, p)
							return
						}
						held = append(held, p)
						if len(held) > i%4 {
							q := held[0]
							held = held[1:]
							live.remove(q)
							if i%5 != 0 {
								pool.Put(q)
							}
						}
					}
				})
			}
			wg.Wait()
			close(errc)
			for err := range errc {
				t.Error(err)
			}
		})
	}
}

// TestRecycled checks the recycled flag: a pool that reuses objects
// reports a Put object as recycled when it comes back, and a fresh object
// as not recycled.
func TestRecycled(t *testing.T) {
	for _, pc := range poolCases {
		t.Run(pc.name, func(t *testing.T) {
			pool := pc.new()
			// Drain what the pool starts with (a FreeList's free slots).
			var first *obj
			for range 100 {
				p, recycled := pool.Get()
				if !recycled {
					first = p
					break
				}
			}
			if first == nil {
				t.Fatal("pool still recycling after 100 Gets without a Put")
			}
			p, recycled := pool.Get()
			if recycled {
				t.Fatalf("Get on a drained pool: recycled=true, want false")
			}
			pool.Put(p)
			q, recycled := pool.Get()
			if !pc.reuses {
				if recycled {
					t.Errorf("Get after Put: recycled=true on a pool that never reuses")
				}
				return
			}
			if _, isFree := pool.(*FreeList[obj]); isFree {
				// p is foreign to the list, so it was dropped.
				if recycled {
					t.Errorf("FreeList recycled a foreign object")
				}
				return
			}
			// sync.Pool may drop a Put object (always possible under -race),
			// so only check consistency: a recycled object is the Put one.
			if recycled && q != p {
				t.Errorf("Get after Put returned %p as recycled, want %p", q, p)
			}
		})
	}
}

func TestPutNil(t *testing.T) {
	for _, pc := range poolCases {
		t.Run(pc.name, func(t *testing.T) {
			pool := pc.new()
			pool.Put(nil)
			for range 200 {
				p, _ := pool.Get()
				if p == nil {
					t.Fatal("Get returned nil after Put(nil)")
				}
			}
		})
	}
}

// fakeClock is an injectable clock for Tiered.
type fakeClock struct{ ns int64 }

func (c *fakeClock) now() int64              { return c.ns }
func (c *fakeClock) advance(d time.Duration) { c.ns += int64(d) }
func newTieredClock(c *fakeClock, tick int) *Tiered[obj] {
	t := NewTiered[obj]()
	t.clock = c.now
	t.tick = tick
	return t
}

func TestTieredTTL(t *testing.T) {
	tests := []struct {
		name    string
		wait    time.Duration
		wantHit bool
	}{
		{"fresh", 0, true},
		{"before-ttl", TieredTTL - time.Millisecond, true},
		{"at-ttl", TieredTTL, true},
		{"after-ttl", TieredTTL + time.Nanosecond, false},
		{"long-after", time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &fakeClock{ns: 1e9}
			pool := newTieredClock(clk, 1)
			var put []*obj
			for range 10 {
				p, _ := pool.Get()
				put = append(put, p)
			}
			for _, p := range put {
				pool.Put(p) // L2 is below half capacity, so all go to L2
			}
			if n := pool.l2n.Load(); n != 10 {
				t.Fatalf("L2 holds %d entries after 10 Puts, want 10", n)
			}
			clk.advance(tt.wait)
			p, recycled := pool.Get()
			if recycled != tt.wantHit {
				t.Fatalf("after %v: recycled=%v, want %v", tt.wait, recycled, tt.wantHit)
			}
			if tt.wantHit && p != put[len(put)-1] {
				t.Errorf("L2 hit returned %p, want the last Put object %p", p, put[len(put)-1])
			}
			if !tt.wantHit {
				if n := pool.l2n.Load(); n != 0 {
					t.Errorf("L2 holds %d expired entries after Get, want 0", n)
				}
			}
		})
	}
}

// TestTieredPrune checks that expired entries below fresh ones are
// discarded when the clock is read.
func TestTieredPrune(t *testing.T) {
	clk := &fakeClock{}
	pool := newTieredClock(clk, 1)
	var old []*obj
	for range 5 {
		p, _ := pool.Get()
		old = append(old, p)
	}
	for _, p := range old {
		pool.Put(p)
	}
	clk.advance(TieredTTL / 2)
	fresh, _ := pool.Get() // pops the newest old entry
	clk.advance(TieredTTL/2 + 1)
	pool.Put(fresh) // stamped now; the 4 old entries have expired
	if n := pool.l2n.Load(); n != 1 {
		t.Fatalf("L2 holds %d entries, want 1 (old entries pruned)", n)
	}
	p, recycled := pool.Get()
	if !recycled || p != fresh {
		t.Errorf("Get = %p, %v; want the fresh entry %p, true", p, recycled, fresh)
	}
}

// TestTieredCoarseClock checks that the real clock is read once per
// TieredClockTick L2 operations.
func TestTieredCoarseClock(t *testing.T) {
	reads := 0
	clk := &fakeClock{}
	pool := NewTiered[obj]()
	pool.clock = func() int64 { reads++; return clk.now() }
	p, _ := pool.Get()
	for range 10 * TieredClockTick {
		pool.Put(p)
		p, _ = pool.Get()
	}
	// 20*tick L2 operations (Put and the L2 Get after it).
	if want := 20; reads != want {
		t.Errorf("clock read %d times over %d L2 operations, want %d", reads, 20*TieredClockTick, want)
	}
}

// TestTieredPutPlacement checks that Put fills L2 to half capacity and
// sends the rest to L1.
func TestTieredPutPlacement(t *testing.T) {
	pool := NewTiered[obj]()
	var objs []*obj
	for range TieredL2Cap {
		p, recycled := pool.Get()
		if recycled {
			t.Fatal("empty Tiered returned a recycled object")
		}
		objs = append(objs, p)
	}
	for _, p := range objs {
		pool.Put(p)
	}
	if n := pool.l2n.Load(); n != TieredL2Cap/2 {
		t.Errorf("L2 holds %d entries after %d Puts, want %d", n, len(objs), TieredL2Cap/2)
	}
}

// TestTieredSlab checks that L3 carves consecutive objects from chunks of
// SlabChunk.
func TestTieredSlab(t *testing.T) {
	pool := NewTiered[obj]()
	prev, _ := pool.Get()
	contiguous := 0
	for range 3*SlabChunk - 1 {
		p, recycled := pool.Get()
		if recycled {
			t.Fatal("slab object reported as recycled")
		}
		if uintptr(unsafe.Pointer(p))-uintptr(unsafe.Pointer(prev)) == unsafe.Sizeof(*p) {
			contiguous++
		}
		prev = p
	}
	// Within each of the 3 chunks, SlabChunk-1 neighbours are adjacent.
	if want := 3 * (SlabChunk - 1); contiguous < want {
		t.Errorf("%d adjacent slab objects, want at least %d", contiguous, want)
	}
}

// drain pops every slot of l and returns the set of slots it got.
func drain(t *testing.T, l *FreeList[obj]) map[*obj]bool {
	t.Helper()
	got := make(map[*obj]bool)
	for {
		p, recycled := l.Get()
		if !recycled {
			return got
		}
		if got[p] {
			t.Fatalf("slot %p popped twice while draining", p)
		}
		got[p] = true
	}
}

func TestFreeListForeignPut(t *testing.T) {
	const n = 8
	l := NewFreeList[obj](n)
	other := NewFreeList[obj](n)
	otherSlot, _ := other.Get()
	base := unsafe.Pointer(&l.slots[0])
	tests := []struct {
		name string
		p    *obj
	}{
		{"nil", nil},
		{"new", new(obj)},
		{"other-list", otherSlot},
		{"misaligned", (*obj)(unsafe.Add(base, 1))},
		{"mid-slot", (*obj)(unsafe.Add(base, 3*unsafe.Sizeof(obj{})+32))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			held := drain(t, l)
			if len(held) != n {
				t.Fatalf("drained %d slots, want %d", len(held), n)
			}
			l.Put(tt.p)
			if p, recycled := l.Get(); recycled {
				t.Errorf("Get after foreign Put returned %p as recycled", p)
			}
			for p := range held {
				l.Put(p)
			}
		})
	}
}

func TestFreeListIndex(t *testing.T) {
	l := NewFreeList[obj](4)
	for i := range l.slots {
		got, ok := l.index(&l.slots[i])
		if !ok || got != uint32(i) {
			t.Errorf("index(&slots[%d]) = %d, %v; want %d, true", i, got, ok, i)
		}
	}
	z := NewFreeList[struct{}](4)
	if _, ok := z.index(&z.slots[0]); ok {
		t.Error("zero-size FreeList accepted a Put")
	}
}

func TestNewFreeListSizes(t *testing.T) {
	tests := []struct{ n, want int }{{-5, 0}, {0, 0}, {1, 1}, {1024, 1024}}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			l := NewFreeList[obj](tt.n)
			if l.Len() != tt.want {
				t.Fatalf("Len() = %d, want %d", l.Len(), tt.want)
			}
			if got := len(drain(t, l)); got != tt.want {
				t.Errorf("drained %d free slots, want %d", got, tt.want)
			}
		})
	}
}

// TestFreeListABATag replays the ABA interleaving: a stale head observed
// before pop A, pop B, push A must not compare equal to the new head, even
// though the top slot is A again.
func TestFreeListABATag(t *testing.T) {
	l := NewFreeList[obj](4)
	stale := l.head.Load()
	a, _ := l.Get()
	b, _ := l.Get()
	l.Put(a)
	now := l.head.Load()
	if uint32(now) != uint32(stale) {
		t.Fatalf("top index changed: %d, want %d", uint32(now), uint32(stale))
	}
	if now == stale {
		t.Fatal("head equal to the stale head: a stale CAS would succeed and lose slot B")
	}
	// With the tag, the stale pop's CAS (which would install B as top)
	// fails.
	if l.head.CompareAndSwap(stale, packHead(stale, 2)) {
		t.Fatal("stale CAS succeeded")
	}
	l.Put(b)
	if got := len(drain(t, l)); got != 4 {
		t.Errorf("drained %d slots after ABA replay, want 4", got)
	}
}

// TestFreeListStress hammers a small list from many goroutines, each
// holding several slots and returning them out of order, then checks that
// no slot was lost or duplicated.
func TestFreeListStress(t *testing.T) {
	const n, goroutines, ops = 16, 8, 10_000
	l := NewFreeList[obj](n)
	owner := make([]atomic.Int32, n) // goroutine+1 holding each slot, 0 if free
	var failed atomic.Bool
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			var held []*obj
			for i := range ops {
				if len(held) < 1+i%3 {
					p, recycled := l.Get()
					if recycled {
						idx, ok := l.index(p)
						if !ok || !owner[idx].CompareAndSwap(0, int32(g+1)) {
							failed.Store(true)
							return
						}
						held = append(held, p)
					}
				} else {
					k := i % len(held)
					p := held[k]
					held = append(held[:k], held[k+1:]...)
					idx, _ := l.index(p)
					owner[idx].Store(0)
					l.Put(p)
				}
				if i%64 == 0 {
					runtime.Gosched()
				}
			}
			for _, p := range held {
				idx, _ := l.index(p)
				owner[idx].Store(0)
				l.Put(p)
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		t.Fatal("a slot was handed to two goroutines at once")
	}
	if got := len(drain(t, l)); got != n {
		t.Errorf("drained %d slots after stress, want %d (slots lost or duplicated)", got, n)
	}
}

// FuzzPools runs an operation sequence against every pool and checks that
// no object is handed out while still held.
func FuzzPools(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 2, 3, 0, 1, 1, 0})
	f.Add([]byte{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0, 0})
	f.Add([]byte{0, 2, 0, 2, 0, 2, 3, 3, 0, 1, 0, 1})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, pc := range poolCases {
			clk := &fakeClock{}
			pool := pc.new()
			if tp, ok := pool.(*Tiered[obj]); ok {
				tp.clock = clk.now
			}
			live := newLiveSet()
			var held []*obj
			for _, op := range ops {
				switch op % 4 {
				case 0: // Get
					p, _ := pool.Get()
					if err := live.add(p, 0); err != nil {
						t.Fatalf("%s: %v", pc.name, err)
					}
					held = append(held, p)
				case 1: // Put the object at position op/4
					if len(held) > 0 {
						k := int(op/4) % len(held)
						p := held[k]
						held = append(held[:k], held[k+1:]...)
						live.remove(p)
						pool.Put(p)
					}
				case 2: // drop the oldest object
					if len(held) > 0 {
						live.remove(held[0])
						held = held[1:]
					}
				case 3: // let time pass
					clk.advance(time.Duration(op) * time.Millisecond)
				}
			}
		}
	})
}
