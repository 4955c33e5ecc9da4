package gateway

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A Map is a concurrent string → int map.
type Map interface {
	Load(k string) (int, bool)
	Store(k string, v int)
	// Insert stores v under k, a key new to the map, and deletes evict,
	// as one write: a cache of fixed size taking a new key and dropping
	// its oldest.
	Insert(k string, v int, evict string)
}

// Maps lists the concurrent map variants in benchmark order.
var Maps = []string{"syncmap", "cow", "sharded", "mutex"}

// NewMap returns the named variant, empty.
func NewMap(name string) (Map, error) {
	switch name {
	case "syncmap":
		return new(syncMap), nil
	case "cow":
		return newCOWMap(), nil
	case "sharded":
		return newShardedMap(), nil
	case "mutex":
		return &mutexMap{m: map[string]int{}}, nil
	}
	return nil, fmt.Errorf("unknown map %q: pick one of %s", name, strings.Join(Maps, ", "))
}

// syncMap is sync.Map; keys and values go through interfaces.
type syncMap struct{ m sync.Map }

func (s *syncMap) Load(k string) (int, bool) {
	v, ok := s.m.Load(k)
	if !ok {
		return 0, false
	}
	return v.(int), true
}

func (s *syncMap) Store(k string, v int) { s.m.Store(k, v) }

func (s *syncMap) Insert(k string, v int, evict string) {
	s.m.Store(k, v)
	s.m.Delete(evict)
}

// cowMap is the article's atomic.Value copy-on-write map: readers load the
// current map without locking; a writer, under a mutex, copies the whole
// map, changes the copy and publishes it.
type cowMap struct {
	v  atomic.Value // map[string]int, never changed once published
	mu sync.Mutex
}

func newCOWMap() *cowMap {
	c := &cowMap{}
	c.v.Store(map[string]int{})
	return c
}

func (c *cowMap) Load(k string) (int, bool) {
	v, ok := c.v.Load().(map[string]int)[k]
	return v, ok
}

func (c *cowMap) Store(k string, v int) {
	c.mu.Lock()
	old := c.v.Load().(map[string]int)
	m := make(map[string]int, len(old)+1)
	for key, val := range old {
		m[key] = val
	}
	m[k] = v
	c.v.Store(m)
	c.mu.Unlock()
}

// Insert copies the map once for both changes.
func (c *cowMap) Insert(k string, v int, evict string) {
	c.mu.Lock()
	old := c.v.Load().(map[string]int)
	m := make(map[string]int, len(old))
	for key, val := range old {
		if key != evict {
			m[key] = val
		}
	}
	m[k] = v
	c.v.Store(m)
	c.mu.Unlock()
}

// shards is the number of shards of shardedMap.
const shards = 8

// shardedMap is article D's 8-way sharded map: 8 sync.Maps, the shard
// chosen by an FNV-1a hash of the key, so each sync.Map holds about an
// eighth of the keys. Before Go 1.24 a sync.Map keeps a read-only map and
// a dirty map of the keys stored since, which it promotes to be the read
// map once loads have missed the read map as often as the dirty map has
// keys; each shard then promotes a dirty map an eighth as large. From Go
// 1.24 on a sync.Map is a concurrent hash-trie with no dirty map
// (internal/sync.HashTrieMap), and sharding only spreads its keys.
type shardedMap struct {
	s [shards]sync.Map
}

func newShardedMap() *shardedMap { return &shardedMap{} }

func fnv1a(k string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(k); i++ {
		h ^= uint32(k[i])
		h *= 16777619
	}
	return h
}

func (s *shardedMap) Load(k string) (int, bool) {
	v, ok := s.s[fnv1a(k)%shards].Load(k)
	if !ok {
		return 0, false
	}
	return v.(int), true
}

func (s *shardedMap) Store(k string, v int) { s.s[fnv1a(k)%shards].Store(k, v) }

func (s *shardedMap) Insert(k string, v int, evict string) {
	s.s[fnv1a(k)%shards].Store(k, v)
	s.s[fnv1a(evict)%shards].Delete(evict)
}

// mutexMap is one map under one sync.Mutex.
type mutexMap struct {
	mu sync.Mutex
	m  map[string]int
}

func (s *mutexMap) Load(k string) (int, bool) {
	s.mu.Lock()
	v, ok := s.m[k]
	s.mu.Unlock()
	return v, ok
}

func (s *mutexMap) Store(k string, v int) {
	s.mu.Lock()
	s.m[k] = v
	s.mu.Unlock()
}

func (s *mutexMap) Insert(k string, v int, evict string) {
	s.mu.Lock()
	s.m[k] = v
	delete(s.m, evict)
	s.mu.Unlock()
}

// MapKeys is the number of keys the map benchmark's map holds: session-like
// keys, split between the goroutines that use it.
const MapKeys = 1024

// A KeyStream is one goroutine's operations on the map: reads of its
// own keys, the newest most often (Zipf-distributed, s = 1.1, over how
// recently a key was inserted), and writes that insert a key new to the
// map and evict the goroutine's oldest, so the goroutine's window of
// live keys slides and the map keeps its size. Its keys are disjoint
// from every other stream's, so a read always finds its key. Inserting
// new keys is what makes a sync.Map before Go 1.24 build and promote
// dirty maps; overwriting keys it already holds does not (it swaps the
// entry in its read map without locking).
type KeyStream struct {
	z      *rand.Zipf
	rng    *rand.Rand
	ring   []string // the stream's keys; key n is ring[n % len(ring)]
	window int      // live keys
	next   int      // the number of the next key to insert
}

// NewKeyStream returns stream id of a map shared by streams streams,
// seeded by seed; its window holds MapKeys/streams keys (at least 2).
func NewKeyStream(seed uint64, id, streams int) *KeyStream {
	w := max(2, MapKeys/max(1, streams))
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	s := &KeyStream{z: rand.NewZipf(rng, 1.1, 1, uint64(w-1)), rng: rng, ring: make([]string, 2*w), window: w}
	for i := range s.ring {
		s.ring[i] = "sess:" + strconv.Itoa(id) + ":" + strconv.FormatUint(uint64(i)*0x9e3779b1%1_000_003, 36)
	}
	return s
}

// Fill stores the stream's first window of keys in m.
func (s *KeyStream) Fill(m Map) {
	for s.next < s.window {
		m.Store(s.key(s.next), s.next)
		s.next++
	}
}

func (s *KeyStream) key(n int) string { return s.ring[n%len(s.ring)] }

// Streams returns n streams sharing m, each with its window filled, and
// reads every key once more, so that a sync.Map with a dirty map has
// promoted them and every run starts from a map read without locking.
func Streams(m Map, seed uint64, n int) []*KeyStream {
	ks := make([]*KeyStream, n)
	for i := range ks {
		ks[i] = NewKeyStream(seed, i, n)
		ks[i].Fill(m)
	}
	for _, s := range ks {
		for n := s.next - s.window; n < s.next; n++ {
			m.Load(s.key(n))
		}
	}
	return ks
}

// Op is one operation of a stream: a read of Key, or a write that
// inserts Key and evicts Evict.
type Op struct {
	Key, Evict string
	Write      bool
	Value      int
}

// Next returns the next operation, a write at writePct percent.
func (s *KeyStream) Next(writePct float64) Op {
	if s.rng.Float64()*100 < writePct {
		op := Op{Key: s.key(s.next), Evict: s.key(s.next - s.window), Write: true, Value: s.next}
		s.next++
		return op
	}
	n := s.next - 1 - int(s.z.Uint64())
	return Op{Key: s.key(n), Value: n}
}

// Apply runs op on m and reports whether a read found its key with the
// value stored under it.
func (op Op) Apply(m Map) bool {
	if op.Write {
		m.Insert(op.Key, op.Value, op.Evict)
		return true
	}
	v, ok := m.Load(op.Key)
	return ok && v == op.Value
}

// syncMaps returns the sync.Maps a variant is built on: one for syncmap,
// eight for sharded, none for the others.
func syncMaps(m Map) []*sync.Map {
	switch m := m.(type) {
	case *syncMap:
		return []*sync.Map{&m.m}
	case *shardedMap:
		out := make([]*sync.Map, len(m.s))
		for i := range m.s {
			out[i] = &m.s[i]
		}
		return out
	}
	return nil
}

// DirtyPromotions runs the map benchmark's workload untimed on a fresh
// map of the named variant: streams goroutines at once, each filling its
// window and then running ops operations with writes at writePct percent.
// It returns how many times the variant's sync.Maps promoted a dirty map,
// per operation (0 for a variant without a sync.Map, and on a Go whose
// sync.Map has none), and note, which says what this Go's sync.Map
// keeps. ok is false when the sync.Map layout read to count promotions
// is not the running Go's, so nothing was counted.
func DirtyPromotions(name string, writePct float64, streams, ops int, seed uint64) (perOp float64, note string, ok bool, err error) {
	m, err := NewMap(name)
	if err != nil {
		return 0, "", false, err
	}
	if !layoutWorks {
		return 0, dirtyMapNote, false, nil
	}
	ks := Streams(m, seed, streams)
	c := newPromotionCounter(syncMaps(m))
	var wg sync.WaitGroup
	var bad atomic.Bool
	for _, s := range ks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range ops {
				if !s.Next(writePct).Apply(m) {
					bad.Store(true)
				}
				c.observe()
			}
		}()
	}
	wg.Wait()
	if bad.Load() {
		return 0, dirtyMapNote, false, fmt.Errorf("%s lost a key it held", name)
	}
	return float64(c.count()) / float64(streams*ops), dirtyMapNote, true, nil
}
