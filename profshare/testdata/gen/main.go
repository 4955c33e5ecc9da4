// Command gen writes the CPU profiles in profshare/testdata: one of a
// program whose goroutines contend for the heap lock and one of a program
// that never allocates. Run it from the repository root:
//
//	go run ./profshare/testdata/gen -out profshare/testdata
//
// The profiles are checked in; the tests read them and never run this.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// deep recurses n frames of about 1 KiB each, so a goroutine's stack grows
// past 100 KiB.
//
//go:noinline
func deep(n int) byte {
	var pad [1024]byte
	pad[n%1024] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return deep(n-1) + pad[n%1024]
}

var sink struct {
	sync.Mutex
	b byte
}

// contended starts short-lived goroutines whose stacks grow to 128 KiB: a
// stack that large is a span of 16 pages, which the runtime allocates and
// frees through the page heap under mheap_.lock, from 8 goroutines per P.
func contended(d time.Duration) {
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	for g := 0; g < 8*runtime.GOMAXPROCS(0); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				done := make(chan byte)
				go func() { done <- deep(100) }()
				b := <-done
				sink.Lock()
				sink.b += b
				sink.Unlock()
			}
		}()
	}
	wg.Wait()
}

// quiet spins on arithmetic without allocating.
func quiet(d time.Duration) {
	stop := time.Now().Add(d)
	x := uint64(1)
	for time.Now().Before(stop) {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink.b += byte(x)
}

func profile(path string, hz int, work func()) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// pprof asks for 100 Hz and, finding a rate already set, keeps this one
	// (printing a warning).
	runtime.SetCPUProfileRate(hz)
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	work()
	pprof.StopCPUProfile()
	return nil
}

func main() {
	out := flag.String("out", "profshare/testdata", "directory to write the profiles to")
	flag.Parse()
	runtime.GOMAXPROCS(2)
	if err := profile(filepath.Join(*out, "contended.pprof"), 500, func() { contended(time.Second) }); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := profile(filepath.Join(*out, "quiet.pprof"), 500, func() { quiet(300 * time.Millisecond) }); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
