package allocscale

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// loggers returns the variants this build has.
func loggers(t *testing.T) map[string]Logger {
	t.Helper()
	out := map[string]Logger{}
	for _, v := range Variants {
		lg, err := NewLogger(v)
		if errors.Is(err, ErrNeedsArenas) {
			continue
		}
		if err != nil {
			t.Fatalf("NewLogger(%q): %v", v, err)
		}
		out[v] = lg
	}
	return out
}

func TestVariantsWriteTheSameRecord(t *testing.T) {
	for name, lg := range loggers(t) {
		t.Run(name, func(t *testing.T) {
			if err := Verify(lg); err != nil {
				t.Fatal(err)
			}
			var r Request
			NewRequest(&r, 42)
			var buf bytes.Buffer
			if err := lg.Log(&r, &buf); err != nil {
				t.Fatal(err)
			}
			var rec map[string]interface{}
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatalf("the record is not JSON: %v", err)
			}
			if len(rec) != fieldCount || rec["path"] != r.Path || rec["message"] != r.Message {
				t.Errorf("record has %d fields (want %d), path %v, message intact %v", len(rec), fieldCount, rec["path"], rec["message"] == r.Message)
			}
			// The article's record size: about 1.4 KB, within the buffers' size hint.
			if n := buf.Len(); n < 1300 || n > 1500 || n > sizeHint {
				t.Errorf("record is %d bytes, want about 1.4 KB and at most %d", n, sizeHint)
			}
		})
	}
}

// wrong writes a record with one byte changed.
type wrong struct{}

func (wrong) Log(r *Request, w io.Writer) error {
	var buf bytes.Buffer
	if err := (Plain{}).Log(r, &buf); err != nil {
		return err
	}
	b := buf.Bytes()
	b[len(b)/2] ^= 1
	_, err := w.Write(b)
	return err
}

// failing cannot log.
type failing struct{}

func (failing) Log(*Request, io.Writer) error { return errors.New("disk full") }

func TestVerifyRejects(t *testing.T) {
	tests := []struct {
		name string
		lg   Logger
	}{
		{"different bytes", wrong{}},
		{"an error", failing{}},
	}
	for _, tt := range tests {
		if err := Verify(tt.lg); err == nil {
			t.Errorf("%s: Verify accepted a logger that writes %s", tt.name, tt.name)
		}
	}
}

func TestNewLoggerUnknown(t *testing.T) {
	if _, err := NewLogger("slab"); err == nil {
		t.Error("NewLogger accepted an unknown variant")
	}
}

// TestLoggersConcurrently logs from several goroutines at once and checks
// every record against Plain's: pools and arenas must not mix requests.
func TestLoggersConcurrently(t *testing.T) {
	for name, lg := range loggers(t) {
		t.Run(name, func(t *testing.T) {
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					var r Request
					for i := 0; i < 300; i++ {
						NewRequest(&r, uint64(g*1000+i))
						var want, got bytes.Buffer
						if err := (Plain{}).Log(&r, &want); err != nil {
							errs <- err
							return
						}
						if err := lg.Log(&r, &got); err != nil {
							errs <- err
							return
						}
						if !bytes.Equal(want.Bytes(), got.Bytes()) {
							errs <- errors.New("a record differs from plain's under concurrency")
							return
						}
					}
				}(g)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func TestHistogramBuckets(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	values := []uint64{0, 1, 7, 8, 9, 15, 16, 17, 1000, 1 << 20, 1<<63 - 1}
	for i := 0; i < 1000; i++ {
		values = append(values, uint64(rng.Int63())>>uint(rng.Intn(63)))
	}
	for _, ns := range values {
		i := bucket(ns)
		if i < 0 || i >= numBuckets {
			t.Fatalf("bucket(%d) = %d, outside [0, %d)", ns, i, numBuckets)
		}
		lo := lowerBound(i)
		if ns < lo || (i+1 < numBuckets && ns >= lowerBound(i+1)) {
			t.Errorf("%d ns is in bucket %d = [%d, %d)", ns, i, lo, lowerBound(i+1))
		}
		if width := lowerBound(i+1) - lo; i+1 < numBuckets && lo >= subBuckets && width > lo/subBuckets {
			t.Errorf("bucket %d is %d ns wide at %d ns, more than 1/%d", i, width, lo, subBuckets)
		}
	}
}

func TestHistogramQuantile(t *testing.T) {
	var h Histogram
	if _, ok := h.Quantile(0.99); ok {
		t.Error("an empty histogram has a quantile")
	}
	rng := rand.New(rand.NewSource(2))
	var all []time.Duration
	for part := 0; part < 4; part++ {
		var p Histogram
		for i := 0; i < 2500; i++ {
			d := time.Duration(rng.ExpFloat64() * float64(10*time.Microsecond))
			p.Record(d)
			all = append(all, d)
		}
		h.Merge(&p)
	}
	if h.Count() != uint64(len(all)) {
		t.Fatalf("count %d after merging, want %d", h.Count(), len(all))
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for _, q := range []float64{0.5, 0.9, 0.99, 1} {
		got, ok := h.Quantile(q)
		idx := int(q*float64(len(all))+0.999999) - 1
		want := all[idx]
		if !ok || got < want-want/8-1 || got > want+want/8+1 {
			t.Errorf("q%g = %v, exact %v: more than 1/8 off", q, got, want)
		}
	}
	if _, ok := h.Quantile(0); ok {
		t.Error("the 0-quantile is out of range and must say so")
	}
	h.Record(-time.Second) // counts as zero
	if got, _ := h.Quantile(1.0 / float64(h.Count())); got != 0 {
		t.Errorf("smallest value %v after recording a negative duration, want 0", got)
	}
}

func TestSnapshot(t *testing.T) {
	before := ReadSnapshot()
	runtime.GC()
	runtime.GC()
	d := ReadSnapshot().Since(before)
	if d.GCCycles < 2 || !d.PauseOK || d.PauseSecPerCycle < 0 {
		t.Errorf("after two forced GCs: %+v; want at least two cycles and a pause per cycle", d)
	}
	if d.CPUOK && (d.GCCPUFraction < 0 || d.GCCPUFraction > 1 || d.ScavengerCPUFraction < 0 || d.ScavengerCPUFraction > 1) {
		t.Errorf("CPU fractions outside [0, 1]: %+v", d)
	}
	if z := before.Since(before); z.CPUOK || z.PauseOK {
		t.Errorf("no change gave %+v; want no fractions and no pause per cycle", z)
	}
}

var keepAlive []byte

func TestPeakRSS(t *testing.T) {
	rss0, ok := ResetPeakRSS()
	if !ok {
		t.Skip("peak RSS is not readable here (Linux /proc only)")
	}
	const size = 64 << 20
	keepAlive = make([]byte, size)
	for i := 0; i < size; i += 4096 {
		keepAlive[i] = 1
	}
	peak, ok := PeakRSS()
	keepAlive = nil
	if !ok || peak-rss0 < size/2 {
		t.Errorf("peak RSS %d after touching %d bytes from %d; want it to grow by at least half of them", peak, size, rss0)
	}
}

func TestParseStatus(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		rss, hwm int64
		ok       bool
	}{
		{"both", "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\nThreads:\t5\n", 1 << 20, 2 << 20, true},
		{"no peak", "VmRSS:\t1024 kB\n", 1 << 20, 0, false},
		{"other unit", "VmRSS:\t1 MB\nVmHWM:\t2 kB\n", 0, 2 << 10, false},
		{"garbage number", "VmRSS:\tlots kB\nVmHWM:\t2 kB\n", 0, 2 << 10, false},
		{"empty", "", 0, 0, false},
	}
	for _, tt := range tests {
		rss, hwm, ok := parseStatus(strings.NewReader(tt.text))
		if rss != tt.rss || hwm != tt.hwm || ok != tt.ok {
			t.Errorf("%s: got (%d, %d, %v), want (%d, %d, %v)", tt.name, rss, hwm, ok, tt.rss, tt.hwm, tt.ok)
		}
	}
}

func FuzzParseStatus(f *testing.F) {
	f.Add("VmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n")
	f.Add("VmRSS:\t-5 kB\nVmHWM:\t99999999999999999999 kB\n")
	f.Add(":\n\x00kB")
	f.Fuzz(func(t *testing.T, text string) {
		rss, hwm, _ := parseStatus(strings.NewReader(text))
		if rss < 0 || hwm < 0 {
			t.Errorf("negative sizes %d, %d from %q", rss, hwm, text)
		}
	})
}
