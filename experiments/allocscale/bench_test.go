package allocscale

import (
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perflab/perflab/benchmetrics"
)

// profileHz is the CPU profiling rate of a profiling pass: ten times the
// 100 Hz that -test.cpuprofile asks for, so that a short pass gives a
// lock share a usable interval.
const profileHz = 1000

// TestMain raises the CPU profiling rate when the binary writes a CPU
// profile. The testing package's own request for 100 Hz then fails,
// printing "runtime: cannot set cpu profile rate until previous profile
// has finished." to standard error, and this rate stays; the profile
// records it, so pprof's times stay right. Timed runs never profile.
//
// When benchmarks run, it also prints "goversion: <runtime.Version()>", a
// benchmark configuration line, so every result says which toolchain built
// the binary that measured it.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.cpuprofile"); f != nil && f.Value.String() != "" {
		runtime.SetCPUProfileRate(profileHz)
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		fmt.Printf("goversion: %s\n", runtime.Version())
	}
	os.Exit(m.Run())
}

// Levels of the sub-benchmarks; the spec picks among them.
var (
	gppLevels  = []int{1, 8, 64, 256, 1024}
	procLevels = []int{1, 2, 4, 8, 16, 32, 64, 128}
)

// yieldEachRequest makes every worker yield after each request, as a
// server goroutine blocks on its connection between requests; without it a
// goroutine would run until preempted and goroutines per P would not
// matter.
const yieldEachRequest = true

func BenchmarkAlloc(b *testing.B) {
	for _, v := range Variants {
		v := v
		b.Run("variant="+v, func(b *testing.B) {
			for _, gpp := range gppLevels {
				gpp := gpp
				b.Run("gpp="+strconv.Itoa(gpp), func(b *testing.B) {
					for _, p := range procLevels {
						p := p
						b.Run("gomaxprocs="+strconv.Itoa(p), func(b *testing.B) { benchLog(b, v, gpp, p) })
					}
				})
			}
		})
	}
}

// crcSink is the log output: it checksums every record, as a writer that
// copies it out would touch every byte.
type crcSink struct {
	sum uint32
	n   int
}

func (s *crcSink) Write(p []byte) (int, error) {
	s.sum = crc32.Update(s.sum, crc32.IEEETable, p)
	s.n += len(p)
	return len(p), nil
}

// sinkTotal keeps the checksums reachable.
var sinkTotal atomic.Uint64

// benchLog serves b.N requests from gpp goroutines per P at GOMAXPROCS
// procs, each request logged by the variant.
func benchLog(b *testing.B, variant string, gpp, procs int) {
	if n := runtime.NumCPU(); procs > n {
		b.Skipf("gomaxprocs=%d needs %d cores; this machine has %d (runtime.NumCPU)", procs, procs, n)
	}
	lg, err := NewLogger(variant)
	if errors.Is(err, ErrNeedsArenas) {
		b.Skip("needs GOEXPERIMENT=arenas")
	}
	if err != nil {
		b.Fatal(err)
	}
	if err := Verify(lg); err != nil {
		b.Fatalf("variant %s is incorrect, not measured: %v", variant, err)
	}
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	b.SetParallelism(gpp)

	var (
		next    atomic.Uint64
		mu      sync.Mutex
		hist    Histogram
		logErr  error
		reqSeen uint64
	)
	runtime.GC()
	rss0, rssOK := ResetPeakRSS()
	before := ReadSnapshot()
	stop := benchmetrics.Measure(b)
	b.RunParallel(func(pb *testing.PB) {
		h := new(Histogram)
		w := new(crcSink)
		var req Request
		var err error
		var n uint64
		for pb.Next() {
			t0 := time.Now()
			NewRequest(&req, next.Add(1))
			if err = lg.Log(&req, w); err != nil {
				break
			}
			h.Record(time.Since(t0))
			n++
			if yieldEachRequest {
				runtime.Gosched()
			}
		}
		sinkTotal.Add(uint64(w.sum))
		mu.Lock()
		hist.Merge(h)
		reqSeen += n
		if err != nil && logErr == nil {
			logErr = err
		}
		mu.Unlock()
	})
	stop()
	after := ReadSnapshot()
	peak, peakOK := PeakRSS()
	if logErr != nil {
		b.Fatalf("variant %s failed to log a request: %v", variant, logErr)
	}
	if p99, ok := hist.Quantile(0.99); ok {
		b.ReportMetric(p99.Seconds(), "p99-sec")
	}
	d := after.Since(before)
	if d.CPUOK {
		b.ReportMetric(d.GCCPUFraction, "gc-cpu-frac")
		b.ReportMetric(d.ScavengerCPUFraction, "scav-cpu-frac")
	}
	if d.PauseOK {
		b.ReportMetric(d.PauseSecPerCycle, "gc-pause-sec/cycle")
	}
	if rssOK && peakOK && peak >= rss0 {
		b.ReportMetric(float64(peak-rss0), "rss-growth-B")
	}
}
