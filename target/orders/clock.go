package orders

import (
	"sync/atomic"
	"time"
)

// A clock tells the time for log lines, request ids and metrics.
type clock interface {
	Now() time.Time
	// AppendStamp appends the current time as a log timestamp.
	AppendStamp(dst []byte) []byte
}

// sysClock calls time.Now every time.
type sysClock struct{}

func (sysClock) Now() time.Time { return time.Now() }

func (sysClock) AppendStamp(dst []byte) []byte {
	return time.Now().UTC().AppendFormat(dst, time.RFC3339Nano)
}

// cachedClock is refreshed by a ticker every millisecond; readers load the
// time and its formatted stamp with one atomic load each.
type cachedClock struct {
	now   atomic.Int64 // unix nanoseconds
	stamp atomic.Pointer[[]byte]
	stop  chan struct{}
}

const stampLayout = "2006-01-02T15:04:05.000Z07:00"

func newCachedClock() *cachedClock {
	c := &cachedClock{stop: make(chan struct{})}
	c.set(time.Now())
	go func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case now := <-t.C:
				c.set(now)
			case <-c.stop:
				return
			}
		}
	}()
	return c
}

func (c *cachedClock) set(now time.Time) {
	c.now.Store(now.UnixNano())
	s := now.UTC().AppendFormat(nil, stampLayout)
	c.stamp.Store(&s)
}

func (c *cachedClock) Now() time.Time { return time.Unix(0, c.now.Load()) }

func (c *cachedClock) AppendStamp(dst []byte) []byte { return append(dst, *c.stamp.Load()...) }

func (c *cachedClock) Close() { close(c.stop) }
