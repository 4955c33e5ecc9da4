package gateway

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Senders lists the ways a handler hands an event to the slow consumer,
// in benchmark order: unbuffered (the leak), ctxcancel (the send gives up
// when the request's context ends) and bounded (a buffered channel that
// drops and counts what does not fit).
var Senders = []string{"unbuffered", "ctxcancel", "bounded"}

// LeakTrial is one trial of the goroutine-leak measurement.
type LeakTrial struct {
	Sender      string
	Concurrency int           // requests in flight at once
	MaxWait     time.Duration // the clients give up at the latest after this long
	ConsumeEach time.Duration // the consumer takes one event per ConsumeEach
	BoundedCap  int           // buffer of the bounded sender
}

// LeakResult is what a trial measured once every client had given up.
type LeakResult struct {
	Goroutines int   // goroutines left over: NumGoroutine now minus before the requests
	Stuck      int   // handlers still blocked in their send
	Dropped    int64 // events the bounded sender dropped (counted, never silent)
	Consumed   int64 // events the consumer took before the clean-up
}

// Run starts a server on 127.0.0.1 whose handler sends one event per
// request to a consumer that takes one event per ConsumeEach, and sends
// Concurrency requests at once. When every request has reached the
// handler (or MaxWait has passed) the clients give up, as clients with a
// timeout do; once every client has returned and the process has
// settled, Run counts the goroutines left. It then releases every blocked handler, closes the
// server and waits until the goroutine count is back where it started,
// failing if it does not get there within five seconds.
func (t LeakTrial) Run(ctx context.Context) (LeakResult, error) {
	var res LeakResult
	if !slices.Contains(Senders, t.Sender) {
		return res, fmt.Errorf("unknown sender %q: pick one of %s", t.Sender, strings.Join(Senders, ", "))
	}
	runtime.GC()
	base := runtime.NumGoroutine()

	var ch chan int
	if t.Sender == "bounded" {
		ch = make(chan int, t.BoundedCap)
	} else {
		ch = make(chan int)
	}
	var stuck, dropped, consumed, arrived atomic.Int64
	all := make(chan struct{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == int64(t.Concurrency) {
			close(all)
		}
		switch t.Sender {
		case "unbuffered":
			stuck.Add(1)
			ch <- 1
			stuck.Add(-1)
		case "ctxcancel":
			stuck.Add(1)
			select {
			case ch <- 1:
			case <-r.Context().Done():
			}
			stuck.Add(-1)
		case "bounded":
			select {
			case ch <- 1:
			default:
				dropped.Add(1)
			}
		}
		w.WriteHeader(http.StatusAccepted)
	})

	// The slow consumer, and a switch that makes it drain at full speed.
	fast := make(chan struct{})
	consumerDone := make(chan struct{})
	go func() {
		defer close(consumerDone)
		tick := time.NewTicker(t.ConsumeEach)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				select {
				case <-ch:
					consumed.Add(1)
				default:
				}
			case <-fast:
				for {
					select {
					case <-ch:
					case <-time.After(50 * time.Millisecond):
						if stuck.Load() == 0 {
							return
						}
					}
				}
			}
		}
	}()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		close(fast)
		<-consumerDone
		return res, fmt.Errorf("listening on loopback: %w", err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)

	// The goroutines of the trial itself (the consumer, the server's
	// accept loop) are not leaks: count from here.
	time.Sleep(time.Millisecond)
	ready := runtime.NumGoroutine()

	tr := &http.Transport{DisableKeepAlives: true}
	client := &http.Client{Transport: tr}
	reqCtx, giveUp := context.WithCancel(ctx)
	defer giveUp()
	go func() {
		select {
		case <-all:
		case <-time.After(t.MaxWait):
		case <-reqCtx.Done():
		}
		giveUp()
	}()
	url := "http://" + ln.Addr().String() + "/event"
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range t.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			req, _ := http.NewRequestWithContext(reqCtx, http.MethodPost, url, nil)
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	close(start)
	wg.Wait()
	tr.CloseIdleConnections()
	// Let the server notice the closed connections and the runtime retire
	// the goroutines that are done.
	settle(base, 100*time.Millisecond)
	res.Goroutines = runtime.NumGoroutine() - ready
	res.Stuck = int(stuck.Load())
	res.Dropped = dropped.Load()
	res.Consumed = consumed.Load()

	// Clean up: release the blocked handlers, stop the server, and make
	// sure nothing is left behind.
	close(fast)
	<-consumerDone
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shut)
	srv.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			return res, fmt.Errorf("%d goroutines still alive five seconds after the clean-up (%d before the trial)", runtime.NumGoroutine()-base, base)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return res, nil
}

// settle waits d, then up to d more while the goroutine count still falls.
func settle(base int, d time.Duration) {
	time.Sleep(d)
	prev := runtime.NumGoroutine()
	for end := time.Now().Add(d); time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n >= prev || n <= base {
			return
		}
		prev = n
	}
}
