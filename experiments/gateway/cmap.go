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

// shards is the number of shards of shardedMap.
const shards = 8

// shardedMap is article D's 8-way sharded map: 8 sync.Maps, the shard
// chosen by an FNV-1a hash of the key, so each sync.Map holds an eighth
// of the keys and promotes a dirty map an eighth as large.
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

// MapKeys is the key space of the map benchmark: session-like keys.
const MapKeys = 1024

// Keys returns the MapKeys keys.
func Keys() []string {
	ks := make([]string, MapKeys)
	for i := range ks {
		ks[i] = "sess:" + strconv.FormatUint(uint64(i)*0x9e3779b1%1_000_003, 36)
	}
	return ks
}

// KeyStream draws key indexes with a Zipf distribution (s = 1.1): a few
// hot keys take most requests, as sessions and routes do in a gateway.
type KeyStream struct {
	z   *rand.Zipf
	rng *rand.Rand
}

// NewKeyStream returns a seeded stream.
func NewKeyStream(seed uint64) *KeyStream {
	rng := rand.New(rand.NewPCG(seed, 0x2545f491))
	return &KeyStream{z: rand.NewZipf(rng, 1.1, 1, MapKeys-1), rng: rng}
}

// Next returns the next key index and whether the operation is a write,
// with writes at writePct percent.
func (s *KeyStream) Next(writePct float64) (int, bool) {
	return int(s.z.Uint64()), s.rng.Float64()*100 < writePct
}
