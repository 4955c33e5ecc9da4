package gateway

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A LogWriter takes one request-log record per call. Log must not keep
// rec after it returns.
type LogWriter interface {
	Log(rec []byte)
	// Close writes out what is buffered and stops any goroutine the
	// writer started.
	Close() error
	// Dropped is the number of records the writer discarded (0 for a
	// writer that never drops).
	Dropped() int64
	// Background is the time goroutines of the writer's own spent
	// writing records out (0 for a writer that has none).
	Background() time.Duration
}

// LogWriters lists the log writer variants in benchmark order.
var LogWriters = []string{"bufio", "ring"}

// NewLogWriter returns the named variant writing to w.
func NewLogWriter(name string, w io.Writer) (LogWriter, error) {
	switch name {
	case "bufio":
		return &BufioLog{w: bufio.NewWriter(w)}, nil
	case "ring":
		return NewRingLog(w, 4096, LogRecordSize+128), nil
	}
	return nil, fmt.Errorf("unknown log writer %q: pick one of %s", name, strings.Join(LogWriters, ", "))
}

// BufioLog is the usual request logger: a bufio.Writer (4 KiB) shared by
// every handler under a mutex; a handler that fills the buffer writes it
// out to the file itself.
type BufioLog struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func (l *BufioLog) Log(rec []byte) {
	l.mu.Lock()
	if _, err := l.w.Write(rec); err != nil && l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
}

func (l *BufioLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.w.Flush(); err != nil && l.err == nil {
		l.err = err
	}
	return l.err
}

func (l *BufioLog) Dropped() int64 { return 0 }

func (l *BufioLog) Background() time.Duration { return 0 }

// RingLog is a ring buffer of fixed-size slots that handlers copy their
// records into without a lock (a bounded multi-producer queue after
// Dmitry Vyukov: a sequence number per slot, one compare-and-swap per
// record), drained by one goroutine that wakes every DrainEvery, or when
// the ring is half full, writes the records through a 64 KiB
// bufio.Writer and flushes it at most every FlushEvery (and when that
// fills). When the ring is full, or a record is longer than a slot, the
// record is dropped and counted: never silently.
type RingLog struct {
	slots   []ringSlot
	mask    uint64
	size    int
	head    atomic.Uint64 // next slot to claim
	_       [56]byte
	tail    uint64 // next slot to drain (written by the drain goroutine only)
	dropped atomic.Int64
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	out     *bufio.Writer
	err     error
	busy    atomic.Int64 // nanoseconds the drain goroutine spent awake
}

// How often the drain goroutine wakes and flushes.
const (
	DrainEvery = 2 * time.Millisecond
	FlushEvery = 10 * time.Millisecond
)

type ringSlot struct {
	seq atomic.Uint64
	n   int
	buf []byte
}

// NewRingLog returns a ring of slots slots (rounded up to a power of two)
// of slotSize bytes, draining into w.
func NewRingLog(w io.Writer, slots, slotSize int) *RingLog {
	n := 1
	for n < slots {
		n <<= 1
	}
	l := &RingLog{slots: make([]ringSlot, n), mask: uint64(n - 1), size: slotSize,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		out: bufio.NewWriterSize(w, 64<<10)}
	for i := range l.slots {
		l.slots[i].seq.Store(uint64(i))
		l.slots[i].buf = make([]byte, slotSize)
	}
	go l.drain()
	return l
}

func (l *RingLog) Log(rec []byte) {
	if len(rec) > l.size {
		l.dropped.Add(1)
		return
	}
	for {
		pos := l.head.Load()
		s := &l.slots[pos&l.mask]
		switch seq := s.seq.Load(); {
		case seq == pos:
			if !l.head.CompareAndSwap(pos, pos+1) {
				continue
			}
			s.n = copy(s.buf, rec)
			s.seq.Store(pos + 1)
			if pos-atomic.LoadUint64(&l.tail) == uint64(len(l.slots)/2) {
				l.notify() // half full: drain now rather than at the next tick
			}
			return
		case seq < pos:
			// The slot still holds a record from one lap ago: full.
			l.dropped.Add(1)
			l.notify()
			return
		}
		// Another producer claimed pos meanwhile: retry.
	}
}

func (l *RingLog) notify() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// drain writes records out in order until Close.
func (l *RingLog) drain() {
	defer close(l.done)
	tick := time.NewTicker(DrainEvery)
	defer tick.Stop()
	lastFlush := time.Now()
	for {
		select {
		case <-l.wake:
		case <-tick.C:
		case <-l.stop:
			l.drainOnce()
			l.flush()
			return
		}
		t0 := time.Now()
		l.drainOnce()
		if l.out.Buffered() > 0 && t0.Sub(lastFlush) >= FlushEvery {
			l.flush()
			lastFlush = t0
		}
		l.busy.Add(int64(time.Since(t0)))
	}
}

func (l *RingLog) flush() {
	if err := l.out.Flush(); err != nil && l.err == nil {
		l.err = err
	}
}

// drainOnce writes every record ready now and returns how many.
func (l *RingLog) drainOnce() int {
	n := 0
	for {
		tail := l.tail
		s := &l.slots[tail&l.mask]
		if s.seq.Load() != tail+1 {
			return n
		}
		if _, err := l.out.Write(s.buf[:s.n]); err != nil && l.err == nil {
			l.err = err
		}
		s.seq.Store(tail + l.mask + 1)
		atomic.StoreUint64(&l.tail, tail+1)
		n++
	}
}

// Close drains what is in the ring, flushes, and stops the drain
// goroutine. Records logged after Close are lost.
func (l *RingLog) Close() error {
	close(l.stop)
	<-l.done
	return l.err
}

// Dropped is the number of records dropped because the ring was full or
// the record longer than a slot.
func (l *RingLog) Dropped() int64 { return l.dropped.Load() }

// Background is the time the drain goroutine spent awake: draining,
// writing and flushing.
func (l *RingLog) Background() time.Duration { return time.Duration(l.busy.Load()) }

// pending is the number of records claimed but not yet drained.
func (l *RingLog) pending() uint64 { return l.head.Load() - atomic.LoadUint64(&l.tail) }
