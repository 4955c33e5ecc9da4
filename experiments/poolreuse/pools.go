package poolreuse

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Pool hands out objects of type T and takes them back.
//
// Get returns an object and whether it was recycled (a previously Put
// object) rather than freshly allocated. Put offers an object back; a pool
// may keep it or drop it. Putting nil is a no-op. Putting an object that is
// still in use, or putting the same object twice without a Get in between,
// is a caller error, as with [sync.Pool].
type Pool[T any] interface {
	Get() (p *T, recycled bool)
	Put(p *T)
}

// Plain is the no-pool baseline: every Get allocates, every Put is dropped.
// The zero value is ready to use.
type Plain[T any] struct{}

// Get returns a freshly allocated object; recycled is always false.
func (Plain[T]) Get() (*T, bool) { return new(T), false }

// Put drops p.
func (Plain[T]) Put(*T) {}

// SyncPool wraps a [sync.Pool] with no New function, so a Get can tell a
// recycled object from a fresh one. The zero value is ready to use; it must
// not be copied after first use.
type SyncPool[T any] struct {
	p sync.Pool
}

// Get returns an object from the pool (recycled=true) or, when the pool has
// none, a freshly allocated one (recycled=false).
func (s *SyncPool[T]) Get() (*T, bool) {
	if v := s.p.Get(); v != nil {
		return v.(*T), true
	}
	return new(T), false
}

// Put returns p to the pool. A nil p is ignored.
func (s *SyncPool[T]) Put(p *T) {
	if p == nil {
		return
	}
	s.p.Put(p)
}

// Parameters of [Tiered].
const (
	// TieredL2Cap is the capacity of the L2 stack. Put fills L2 only up to
	// half of it; the rest is headroom.
	TieredL2Cap = 256
	// TieredTTL is how long an object may wait in L2 before Get discards it.
	TieredTTL = 100 * time.Millisecond
	// TieredClockTick is how many L2 operations share one reading of the
	// coarse clock.
	TieredClockTick = 64
	// SlabChunk is how many objects the L3 slab allocator carves from one
	// pre-allocated chunk.
	SlabChunk = 64
)

// epoch anchors the default clock so that it reads the monotonic clock.
var epoch = time.Now()

// monotonicNanos is the default clock of [Tiered]: nanoseconds since epoch
// on the monotonic clock.
func monotonicNanos() int64 { return int64(time.Since(epoch)) }

// Tiered is a three-tier pool:
//
//   - L1, a [sync.Pool]: lock-free, per-P, cleared by every GC cycle;
//   - L2, a mutex-guarded stack of at most [TieredL2Cap] entries, each
//     stamped when Put; Get discards entries older than [TieredTTL]. L2 is a
//     warm reserve that survives GC;
//   - L3, a slab allocator that carves objects from pre-allocated chunks of
//     [SlabChunk] objects. Objects from one chunk share one allocation, which
//     stays live while any of them is referenced.
//
// Get tries L1, then L2, then L3; recycled is true only for L1 and L2 hits.
// Put goes to L2 while L2 holds fewer than TieredL2Cap/2 entries, else to L1.
//
// Timestamps come from a coarse clock: the real (monotonic) clock is read
// on the first L2 operation of every [TieredClockTick] L2 operations, and
// the other operations reuse that reading. This keeps a clock read off most
// L2 operations. The price is that L2 ages in steps: an entry's age is
// known only to within the time the last TieredClockTick L2 operations
// took, so after an idle spell up to TieredClockTick-1 L2 operations may
// still serve an expired entry, and entries stamped in that window look
// older than they are and may be discarded early. Expired entries below the
// top of the stack are pruned whenever the clock is refreshed.
//
// The zero value is ready to use; a Tiered must not be copied after first
// use. [NewTiered] returns one with L2 storage allocated up front.
type Tiered[T any] struct {
	l1 sync.Pool

	mu    sync.Mutex
	l2    []tieredEntry[T] // stack; stamps never decrease from bottom to top
	l2n   atomic.Int32     // len(l2), readable without mu
	ops   int              // L2 operations since the clock was last read
	now   int64            // coarse clock reading, nanoseconds
	clock func() int64     // nil means monotonicNanos
	tick  int              // 0 means TieredClockTick
	ttl   int64            // 0 means TieredTTL

	slabMu sync.Mutex
	slab   []T // rest of the current chunk
}

type tieredEntry[T any] struct {
	obj *T
	at  int64
}

// NewTiered returns an empty tiered pool.
func NewTiered[T any]() *Tiered[T] {
	return &Tiered[T]{l2: make([]tieredEntry[T], 0, TieredL2Cap)}
}

// Get returns an object from L1 or L2 (recycled=true) or from the L3 slab
// (recycled=false).
func (t *Tiered[T]) Get() (*T, bool) {
	if v := t.l1.Get(); v != nil {
		return v.(*T), true
	}
	if p := t.l2Get(); p != nil {
		return p, true
	}
	return t.l3Alloc(), false
}

// Put returns p to L2 while L2 is below half capacity, else to L1. A nil p
// is ignored.
func (t *Tiered[T]) Put(p *T) {
	if p == nil {
		return
	}
	if t.l2n.Load() < TieredL2Cap/2 {
		t.mu.Lock()
		if len(t.l2) < TieredL2Cap/2 {
			now := t.coarseNow()
			t.l2 = append(t.l2, tieredEntry[T]{obj: p, at: now})
			t.l2n.Store(int32(len(t.l2)))
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
	}
	t.l1.Put(p)
}

// l2Get pops the newest unexpired L2 entry, or returns nil.
func (t *Tiered[T]) l2Get() *T {
	if t.l2n.Load() == 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.coarseNow()
	n := len(t.l2)
	if n == 0 {
		return nil
	}
	top := t.l2[n-1]
	if now-top.at > t.ttlNanos() {
		// The top is the newest entry, so every entry has expired.
		clear(t.l2)
		t.l2 = t.l2[:0]
		t.l2n.Store(0)
		return nil
	}
	t.l2[n-1] = tieredEntry[T]{}
	t.l2 = t.l2[:n-1]
	t.l2n.Store(int32(n - 1))
	return top.obj
}

// coarseNow returns the coarse clock, reading the real clock on the first
// of every tick L2 operations and pruning expired entries then. t.mu must
// be held.
func (t *Tiered[T]) coarseNow() int64 {
	if t.ops == 0 {
		if t.clock != nil {
			t.now = t.clock()
		} else {
			t.now = monotonicNanos()
		}
		t.pruneLocked()
	}
	t.ops++
	tick := t.tick
	if tick <= 0 {
		tick = TieredClockTick
	}
	if t.ops >= tick {
		t.ops = 0
	}
	return t.now
}

// pruneLocked drops the expired entries at the bottom of L2. t.mu must be
// held.
func (t *Tiered[T]) pruneLocked() {
	ttl := t.ttlNanos()
	k := sort.Search(len(t.l2), func(i int) bool { return t.now-t.l2[i].at <= ttl })
	if k == 0 {
		return
	}
	m := copy(t.l2, t.l2[k:])
	clear(t.l2[m:])
	t.l2 = t.l2[:m]
	t.l2n.Store(int32(m))
}

func (t *Tiered[T]) ttlNanos() int64 {
	if t.ttl > 0 {
		return t.ttl
	}
	return int64(TieredTTL)
}

// l3Alloc carves one object from the current slab chunk, allocating a new
// chunk when it is used up.
func (t *Tiered[T]) l3Alloc() *T {
	t.slabMu.Lock()
	if len(t.slab) == 0 {
		t.slab = make([]T, SlabChunk)
	}
	p := &t.slab[0]
	t.slab = t.slab[1:]
	t.slabMu.Unlock()
	return p
}

// maxFreeListSlots is the most slots a [FreeList] can index: index+1 must
// fit in 32 bits, with 0 meaning "none".
const maxFreeListSlots = 1<<32 - 2

// FreeList is a lock-free Treiber stack over a fixed set of pre-allocated
// slots.
//
// The stack links slots by index: next[i] holds the index+1 of the slot
// below slot i (0 ends the list), and head packs a 32-bit ABA tag (high
// half, incremented by every successful push and pop) with the index+1 of
// the top slot (low half). Storing indices rather than pointers keeps every
// pointer visible to the garbage collector. The tag defeats the ABA problem
// unless one goroutine stalls between its load and its compare-and-swap for
// exactly a multiple of 2³² stack operations.
//
// Get pops a slot (recycled=true) or, when the list is empty, allocates a
// "foreign" object (recycled=false). Put pushes back only the list's own
// slots, recognised by address; foreign objects are dropped. A slot that is
// dropped instead of Put is lost to the list for good, so a FreeList
// degrades to plain allocation when objects are not all returned.
//
// For a zero-size T every Put is dropped. The zero value is an empty list
// with no slots.
type FreeList[T any] struct {
	slots []T
	next  []atomic.Uint32
	head  atomic.Uint64
}

// NewFreeList returns a free list with n slots, all free. n is clamped to
// [0, 2³²-2].
func NewFreeList[T any](n int) *FreeList[T] {
	if n < 0 {
		n = 0
	}
	if uint64(n) > maxFreeListSlots {
		n = maxFreeListSlots
	}
	l := &FreeList[T]{slots: make([]T, n), next: make([]atomic.Uint32, n)}
	for i := 0; i+1 < n; i++ {
		l.next[i].Store(uint32(i + 2)) // slot i+1, as index+1
	}
	if n > 0 {
		l.head.Store(1) // tag 0, slot 0
	}
	return l
}

// Len returns the number of slots, free or not.
func (l *FreeList[T]) Len() int { return len(l.slots) }

// Get pops a free slot (recycled=true) or, when none is free, returns a
// freshly allocated object that does not belong to the list
// (recycled=false).
func (l *FreeList[T]) Get() (*T, bool) {
	for {
		h := l.head.Load()
		top := uint32(h)
		if top == 0 {
			return new(T), false
		}
		below := l.next[top-1].Load()
		if l.head.CompareAndSwap(h, packHead(h, below)) {
			return &l.slots[top-1], true
		}
	}
}

// Put pushes p back if it is one of the list's slots; any other object,
// and nil, is dropped.
func (l *FreeList[T]) Put(p *T) {
	i, ok := l.index(p)
	if !ok {
		return
	}
	for {
		h := l.head.Load()
		l.next[i].Store(uint32(h))
		if l.head.CompareAndSwap(h, packHead(h, i+1)) {
			return
		}
	}
}

// packHead returns a head word with old's tag incremented and top as the
// index+1 of the top slot.
func packHead(old uint64, top uint32) uint64 {
	return (old>>32+1)<<32 | uint64(top)
}

// index returns the slot index of p, or false if p is not the address of
// one of l's slots.
func (l *FreeList[T]) index(p *T) (uint32, bool) {
	if p == nil || len(l.slots) == 0 {
		return 0, false
	}
	size := unsafe.Sizeof(l.slots[0])
	if size == 0 {
		return 0, false
	}
	// Both addresses are only compared as integers; nothing is converted
	// back to a pointer.
	base := uintptr(unsafe.Pointer(unsafe.SliceData(l.slots)))
	addr := uintptr(unsafe.Pointer(p))
	if addr < base {
		return 0, false
	}
	off := addr - base
	if off%size != 0 || off/size >= uintptr(len(l.slots)) {
		return 0, false
	}
	return uint32(off / size), true
}
