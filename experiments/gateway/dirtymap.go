//go:build !go1.24

package gateway

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Before Go 1.24 a sync.Map is a read-only map, read without locking,
// and a dirty map under a mutex holding the keys stored since the read
// map was last replaced. A load that misses the read map takes the lock
// and counts a miss; once the misses reach the dirty map's length, the
// dirty map is promoted: it becomes the read map, and the next store of a
// new key copies the read map into a fresh dirty map. The layout below is
// sync.Map's in Go 1.20 to 1.23 (src/sync/map.go; this package needs Go
// 1.22); syncMapLayoutWorks confirms it on the running Go before any
// promotion is counted.

type syncMapLayout struct {
	mu     sync.Mutex
	read   atomic.Pointer[readOnlyLayout]
	dirty  map[any]unsafe.Pointer
	misses int
}

type readOnlyLayout struct {
	m       map[any]unsafe.Pointer
	amended bool
}

// dirtyMapNote says what DirtyPromotions counts on this Go.
const dirtyMapNote = "sync.Map keeps a dirty map (Go before 1.24)"

// readMap returns the identity of m's read map: its map header, which
// changes only when a dirty map is promoted (a store that marks the read
// map amended keeps it).
func readMap(m *sync.Map) unsafe.Pointer {
	ro := (*syncMapLayout)(unsafe.Pointer(m)).read.Load()
	if ro == nil {
		return nil
	}
	return *(*unsafe.Pointer)(unsafe.Pointer(&ro.m))
}

// syncMapLayoutWorks checks syncMapLayout against a sync.Map it drives
// through one promotion: three new keys land in the dirty map, and three
// loads of one of them, missing the read map, promote it.
func syncMapLayoutWorks() bool {
	if unsafe.Sizeof(sync.Map{}) != unsafe.Sizeof(syncMapLayout{}) {
		return false
	}
	var m sync.Map
	for _, k := range []string{"a", "b", "c"} {
		m.Store(k, 1)
	}
	l := (*syncMapLayout)(unsafe.Pointer(&m))
	m.Load("zz") // a miss that leaves the maps as they are
	if ro := l.read.Load(); ro == nil || len(ro.m) != 0 || !ro.amended {
		return false
	}
	before := readMap(&m)
	for range 3 {
		m.Load("a")
	}
	ro := l.read.Load()
	return ro != nil && len(ro.m) == 3 && !ro.amended && readMap(&m) != before
}

var layoutWorks = syncMapLayoutWorks()

// promotionCounter counts the promotions of a set of sync.Maps' dirty
// maps, seen as changes of their read maps; see DirtyPromotions.
type promotionCounter struct {
	maps []*sync.Map
	last []atomic.Pointer[byte]
	n    atomic.Uint64
}

func newPromotionCounter(maps []*sync.Map) *promotionCounter {
	c := &promotionCounter{maps: maps, last: make([]atomic.Pointer[byte], len(maps))}
	for i, m := range maps {
		c.last[i].Store((*byte)(readMap(m)))
	}
	return c
}

// observe counts each read map it has not seen before; called after
// every operation by every goroutine, it sees every promotion unless two
// come between one goroutine's operations.
func (c *promotionCounter) observe() {
	for i, m := range c.maps {
		p := (*byte)(readMap(m))
		if old := c.last[i].Load(); p != old && c.last[i].CompareAndSwap(old, p) {
			c.n.Add(1)
		}
	}
}

func (c *promotionCounter) count() uint64 { return c.n.Load() }
