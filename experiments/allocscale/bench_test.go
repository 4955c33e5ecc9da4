package allocscale

import (
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"runtime"
	"runtime/debug"
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

// u64 and atomicFlag are atomic.Uint64 and atomic.Bool, which Go 1.18 (the
// go1.18 config) does not have. A u64 must be 64-bit aligned: a variable
// of its own, or the first word of an allocated struct.
type u64 struct{ v uint64 }

func (c *u64) Add(d uint64) uint64 { return atomic.AddUint64(&c.v, d) }
func (c *u64) Load() uint64        { return atomic.LoadUint64(&c.v) }

type atomicFlag struct{ v uint32 }

func (f *atomicFlag) Store(b bool) {
	var v uint32
	if b {
		v = 1
	}
	atomic.StoreUint32(&f.v, v)
}
func (f *atomicFlag) Load() bool { return atomic.LoadUint32(&f.v) != 0 }

// sinkTotal keeps the checksums reachable.
var sinkTotal u64

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
		next    u64
		mu      sync.Mutex
		hist    Histogram
		logErr  error
		reqSeen uint64
	)
	// Return the free heap of earlier runs (testing's b.N ramp) to the OS,
	// so the RSS growth below starts from the same state in every process.
	debug.FreeOSMemory()
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
	// Under a memory limit (GOMEMLIMIT, debug.SetMemoryLimit), how close
	// the process came to it: its peak RSS over the limit, a lower bound of
	// the total the runtime counts against it. The runtime's scavenger
	// works to keep that total below 95% of the limit, and the GC runs
	// earlier as the heap nears it: above 0.9 the limit is at work.
	if limit := MemoryLimit(); limit < math.MaxInt64 && limit > 0 && peakOK {
		b.ReportMetric(float64(peak)/float64(limit), "peak-rss/limit")
	}
}

// Windows of BenchmarkWindows: windowCount windows of windowPeriod for
// the correlation, one shareWindow for the lock shares.
const (
	windowPeriod = 100 * time.Millisecond // article E's windows (“时间窗口为 100ms 滑动采样”)
	windowCount  = 12
	shareWindow  = 250 * time.Millisecond
)

// shareProcs is the least GOMAXPROCS whose cells BenchmarkWindows profiles
// for the lock shares: article E's lock-contention claims are about 16 to
// 64 cores and are judged there; on fewer cores the profiling pass's
// per-cell profiles show the shares as context.
const shareProcs = 16

// BenchmarkWindows runs the request loop of a variant for fixed windows,
// which measure what a run of b.N requests cannot.
//
// At variant=plain, gpp=64, gomaxprocs=2 it runs windowCount windows of
// windowPeriod per iteration and samples runtime/metrics at every window:
// the scavenger's CPU time, the time goroutines blocked on locks, and the
// share of goroutines waiting. It reports, per run, the Pearson coefficient
// across its windows of scavenger time against lock wait (r-scav-lockwait)
// and against the waiting share (r-scav-blockrate), and how many windows
// saw scavenger work (scav-windows); a coefficient whose series did not
// vary is not reported. Each run is one time series, so the rounds, not
// the windows, are the independent units a claim summarises.
//
// At gpp=64 or incidentGPP and gomaxprocs ≥ shareProcs (variants plain,
// pooled and arena) it runs one shareWindow per iteration under a CPU profile at
// profileHz and reports the share of its samples in runtime lock frames
// reached from the heap allocator (heap-lock-share) and in any runtime
// lock frame (lock-share), as package profshare counts them, and the
// samples behind them (profile-samples): one share per round, so a claim
// on a share gets an interval across rounds, as from any other unit.
//
// The other cells skip themselves, as does the profiling pass.
func BenchmarkWindows(b *testing.B) {
	for _, v := range Variants {
		v := v
		b.Run("variant="+v, func(b *testing.B) {
			for _, gpp := range gppLevels {
				gpp := gpp
				b.Run("gpp="+strconv.Itoa(gpp), func(b *testing.B) {
					for _, p := range procLevels {
						p := p
						b.Run("gomaxprocs="+strconv.Itoa(p), func(b *testing.B) { benchWindows(b, v, gpp, p) })
					}
				})
			}
		})
	}
}

// windowsAt says which windows BenchmarkWindows runs in a cell: the
// correlation's, the lock shares', or (both false) none.
func windowsAt(variant string, gpp, procs int) (correlation, shares bool) {
	return variant == "plain" && gpp == 64 && procs == 2, (gpp == 64 || gpp == incidentGPP) && procs >= shareProcs && variant != "presized"
}

// incidentGPP is the goroutines per P of article E's incident, “单机
// goroutine 数超 5 万” (over 50,000 goroutines on one machine) at the 64 Ps
// its contention figures reach: 1024 per P is 65,536 goroutines at
// GOMAXPROCS 64, the least level of gppLevels above 50,000. E1, E2, E5 and
// E7 are judged there.
const incidentGPP = 1024

func benchWindows(b *testing.B, variant string, gpp, procs int) {
	correlation, shares := windowsAt(variant, gpp, procs)
	if !correlation && !shares {
		b.Skipf("windows run at variant=plain,gpp=64,gomaxprocs=2 (correlation) and at gpp=64 or %d, gomaxprocs ≥ %d for plain, pooled and arena (lock shares) only", incidentGPP, shareProcs)
	}
	if f := flag.Lookup("test.cpuprofile"); f != nil && f.Value.String() != "" {
		b.Skip("windows are not profiled")
	}
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
	if correlation {
		correlationWindows(b, lg, gpp*procs)
		return
	}
	var total, lock, heap int64
	var waited, elapsed float64
	for i := 0; i < b.N; i++ {
		s := NewSampler()
		t0 := time.Now()
		c, err := ProfileWindow(shareWindow, profileHz, func(stop <-chan struct{}) error { return serve(lg, gpp*procs, stop) })
		if err != nil {
			b.Fatalf("variant %s: %v", variant, err)
		}
		elapsed += time.Since(t0).Seconds()
		waited += s.Sample().LockWaitSec
		total, lock, heap = total+c.Total, lock+c.Lock, heap+c.HeapLock
	}
	b.ReportMetric(float64(total)/float64(b.N), "profile-samples")
	b.ReportMetric(float64(heap)/float64(total), "heap-lock-share")
	b.ReportMetric(float64(lock)/float64(total), "lock-share")
	if LockWaitReported() {
		b.ReportMetric(waited/(elapsed*float64(procs)), "lock-wait-share")
	}
}

// serve logs requests from n goroutines, each yielding after every
// request, until stop is closed, and returns the first error.
func serve(lg Logger, n int, stop <-chan struct{}) error {
	var (
		next u64
		wg   sync.WaitGroup
		done atomicFlag
	)
	errs := make(chan error, 1)
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := new(crcSink)
			var req Request
			for !done.Load() {
				NewRequest(&req, next.Add(1))
				if err := lg.Log(&req, w); err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
				runtime.Gosched()
			}
			sinkTotal.Add(uint64(w.sum))
		}()
	}
	<-stop
	done.Store(true)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// correlationWindows runs b.N series of windowCount windows of the
// request loop from n goroutines and reports the correlations.
func correlationWindows(b *testing.B, lg Logger, n int) {
	var scav, wait, block []float64
	active := 0
	for i := 0; i < b.N; i++ {
		stop := make(chan struct{})
		done := make(chan error, 1)
		go func() { done <- serve(lg, n, stop) }()
		s := NewSampler()
		tick := time.NewTicker(windowPeriod)
		for k := 0; k < windowCount; k++ {
			<-tick.C
			w := s.Sample()
			scav = append(scav, w.ScavengeSec)
			wait = append(wait, w.LockWaitSec)
			block = append(block, w.BlockRate)
			if w.ScavengeSec > 0 {
				active++
			}
		}
		tick.Stop()
		close(stop)
		if err := <-done; err != nil {
			b.Fatalf("failed to log a request: %v", err)
		}
	}
	b.ReportMetric(float64(active), "scav-windows")
	if r := Pearson(scav, wait); !math.IsNaN(r) {
		b.ReportMetric(r, "r-scav-lockwait")
	}
	if r := Pearson(scav, block); !math.IsNaN(r) {
		b.ReportMetric(r, "r-scav-blockrate")
	}
}
