//go:build goexperiment.arenas

package allocscale

import (
	"arena"
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// requestsPerArena is how many requests one arena serves before it is
// freed and replaced; at sizeHint bytes twice per request that is 4 MiB,
// half of the runtime's 8 MiB arena chunk.
const requestsPerArena = 1024

// arenaSlot is one arena of the pool and how many requests it served.
type arenaSlot struct {
	a    *arena.Arena
	used int
}

// arenaPool is the per-P pool of arenas: sync.Pool keeps a private slot
// per P, so a goroutine mostly gets the arena of the P it runs on. An
// arena dropped by the pool is freed by the runtime's finalizer.
var arenaPool sync.Pool

// Arena allocates both byte slices of a request from a pooled arena (the
// article's E5 "per-thread arena pool", with the real API: package arena
// under GOEXPERIMENT=arenas). The map cannot live in an arena and is
// allocated per request, as in Plain.
type Arena struct{}

func newArenaLogger() (Logger, error) { return Arena{}, nil }

// Log implements Logger.
func (Arena) Log(r *Request, w io.Writer) error {
	s, _ := arenaPool.Get().(*arenaSlot)
	if s == nil {
		s = &arenaSlot{a: arena.NewArena()}
	}
	if s.used >= requestsPerArena {
		s.a.Free()
		s.a, s.used = arena.NewArena(), 0
	}
	s.used++
	defer arenaPool.Put(s)
	m := make(map[string]interface{})
	fill(m, r)
	buf := bytes.NewBuffer(arena.MakeSlice[byte](s.a, 0, sizeHint))
	if err := json.NewEncoder(buf).Encode(m); err != nil {
		return err
	}
	out := arena.MakeSlice[byte](s.a, buf.Len(), buf.Len())
	copy(out, buf.Bytes())
	// out is written while its arena is held: no other goroutine can free
	// it before the slot goes back to the pool.
	_, err := w.Write(out)
	return err
}
