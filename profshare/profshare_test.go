package profshare

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name           string
		stack          []string // leaf first
		lock, heapLock bool
	}{
		{"empty", nil, false, false},
		{"user code", []string{"main.work", "main.main"}, false, false},
		{"heap lock spinning", []string{"runtime.procyield", "runtime.lock2", "runtime.lockWithRank", "runtime.lock", "runtime.(*mheap).allocSpan", "runtime.(*mheap).alloc.func1", "runtime.systemstack", "runtime.(*mheap).alloc", "runtime.mallocgc"}, true, true},
		{"heap unlock", []string{"runtime.unlock2", "runtime.(*mheap).freeSpan", "runtime.(*sweepLocked).sweep", "runtime.bgsweep"}, true, true},
		{"mcentral grow", []string{"runtime.futex", "runtime.futexsleep", "runtime.lock2", "runtime.(*mcentral).grow", "runtime.(*mcache).refill"}, true, true},
		{"scavenger", []string{"runtime.lock2", "runtime.(*pageAlloc).scavenge", "runtime.(*scavengerState).run", "runtime.bgscavenge"}, true, true},
		{"scheduler lock", []string{"runtime.lock2", "runtime.lock", "runtime.findRunnable", "runtime.schedule"}, true, false},
		{"sync.Mutex through the semaphore table", []string{"runtime.lock2", "runtime.semacquire1", "sync.runtime_SemacquireMutex", "sync.(*Mutex).lockSlow"}, true, false},
		{"allocator frame below the lock frame", []string{"runtime.(*mheap).nextSpanForSweep", "runtime.lock2", "runtime.schedule"}, true, false},
		{"lock taken further down an allocator's call", []string{"runtime.lock2", "runtime.gcParkAssist", "runtime.(*mheap).alloc"}, true, true},
		{"allocator without a lock", []string{"runtime.memclrNoHeapPointers", "runtime.(*mheap).allocSpan", "runtime.(*mheap).alloc"}, false, false},
		{"a user function named like a lock", []string{"main.lock2", "runtime.(*mheap).alloc"}, false, false},
		{"unlock2Wake", []string{"runtime.futexwakeup", "runtime.unlock2Wake", "runtime.unlock2", "runtime.(*mcentral).uncacheSpan"}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lock, heap := Classify(tt.stack)
			if lock != tt.lock || heap != tt.heapLock {
				t.Errorf("Classify = (lock %v, heap %v), want (%v, %v)", lock, heap, tt.lock, tt.heapLock)
			}
		})
	}
}

// synth builds a CPU profile from stacks given as ";"-separated function
// names, leaf first; "a+b" is one location holding the inlined a inside b.
func synth(t testing.TB, types []*profile.ValueType, samples map[string][]int64) *profile.Profile {
	t.Helper()
	p := &profile.Profile{SampleType: types, PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1e7}
	funcs := map[string]*profile.Function{}
	fn := func(name string) *profile.Function {
		if f, ok := funcs[name]; ok {
			return f
		}
		f := &profile.Function{ID: uint64(len(funcs) + 1), Name: name, SystemName: name}
		funcs[name] = f
		p.Function = append(p.Function, f)
		return f
	}
	locs := map[string]*profile.Location{}
	for stack, values := range samples {
		s := &profile.Sample{Value: values}
		for _, frame := range strings.Split(stack, ";") {
			loc, ok := locs[frame]
			if !ok {
				loc = &profile.Location{ID: uint64(len(locs) + 1), Address: uint64(0x1000 + len(locs))}
				for _, name := range strings.Split(frame, "+") {
					loc.Line = append(loc.Line, profile.Line{Function: fn(name), Line: 1})
				}
				locs[frame] = loc
				p.Location = append(p.Location, loc)
			}
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatalf("synthetic profile is invalid: %v", err)
	}
	return p
}

var cpuTypes = []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}

func TestFromProfile(t *testing.T) {
	tests := []struct {
		name    string
		types   []*profile.ValueType
		samples map[string][]int64
		want    Counts
	}{
		{
			name:  "mixed",
			types: cpuTypes,
			samples: map[string][]int64{
				"main.work;main.main": {6, 6e7},
				"runtime.lock2;runtime.lockWithRank+runtime.lock+runtime.(*mheap).allocSpan;runtime.(*mheap).alloc;runtime.mallocgc;main.work": {3, 3e7},
				"runtime.unlock2+runtime.unlock;runtime.findRunnable;runtime.schedule":                                                         {1, 1e7},
			},
			want: Counts{Total: 10, Lock: 4, HeapLock: 3},
		},
		{
			name:  "inlined lock frame inside an allocator frame",
			types: cpuTypes,
			samples: map[string][]int64{
				"runtime.procyield;runtime.lock2+runtime.lock+runtime.(*mcentral).grow;runtime.(*mcache).refill": {2, 2e7},
				"main.work": {2, 2e7},
			},
			want: Counts{Total: 4, Lock: 2, HeapLock: 2},
		},
		{
			name:  "samples count not first",
			types: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}, {Type: "samples", Unit: "count"}},
			samples: map[string][]int64{
				"runtime.lock2;runtime.(*pageAlloc).scavenge": {5e7, 5},
				"main.work": {1e7, 1},
			},
			want: Counts{Total: 6, Lock: 5, HeapLock: 5},
		},
		{
			name:    "no samples count: first type",
			types:   []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
			samples: map[string][]int64{"runtime.lock2;main.work": {30}, "main.work": {70}},
			want:    Counts{Total: 100, Lock: 30},
		},
		{
			name:    "empty profile",
			types:   cpuTypes,
			samples: nil,
			want:    Counts{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := synth(t, tt.types, tt.samples)
			got, err := FromProfile(p)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("counts = %+v, want %+v", got, tt.want)
			}
			// The same through the encoded form.
			var buf bytes.Buffer
			if err := p.Write(&buf); err != nil {
				t.Fatal(err)
			}
			got, err = Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("after encoding: counts = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestFromProfileErrors(t *testing.T) {
	neg := synth(t, cpuTypes, map[string][]int64{"main.work": {-1, 0}})
	if _, err := FromProfile(neg); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("negative count: err = %v, want one naming the negative count", err)
	}
	short := synth(t, cpuTypes, map[string][]int64{"main.work": {1, 1}})
	short.SampleType = append(short.SampleType, &profile.ValueType{Type: "x", Unit: "count"})
	short.SampleType[0], short.SampleType[2] = short.SampleType[2], short.SampleType[0] // samples/count is now third
	if _, err := FromProfile(short); err == nil {
		t.Error("a sample with fewer values than the count's index gave no error")
	}
	if _, err := FromProfile(&profile.Profile{}); err == nil {
		t.Error("a profile without sample types gave no error")
	}
	if _, err := FromProfile(nil); err == nil {
		t.Error("a nil profile gave no error")
	}
	if _, err := Read(strings.NewReader("not a profile")); err == nil {
		t.Error("garbage gave no error")
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.pprof")); err == nil || !strings.Contains(err.Error(), "moved or deleted") {
		t.Errorf("missing file: err = %v, want a hint", err)
	}
}

// lockFuncRE matches the lock frames: an oracle for Counts.Lock through
// pprof's own sample filter.
var lockFuncRE = regexp.MustCompile(`^runtime\.(lock|lock2|lockWithRank|unlock|unlock2|unlock2Wake|unlockWithRank)$`)

// TestRealProfiles reads CPU profiles written by testdata/gen: a program
// churning 128 KiB goroutine stacks through the page heap, and one that
// never allocates.
func TestRealProfiles(t *testing.T) {
	tests := []struct {
		file     string
		heapLock bool // whether heap-lock samples must be present
	}{
		{"contended.pprof", true},
		{"quiet.pprof", false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			c, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.Total == 0 || c.HeapLock > c.Lock || c.Lock > c.Total {
				t.Fatalf("counts %+v: want 0 < Total and HeapLock <= Lock <= Total", c)
			}
			if tt.heapLock != (c.HeapLock > 0) {
				t.Errorf("heap-lock samples: %d; want some: %v", c.HeapLock, tt.heapLock)
			}

			// Oracle for Lock: pprof's focus filter keeps the samples with a
			// frame matching the lock functions.
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p, err := profile.ParseData(data)
			if err != nil {
				t.Fatal(err)
			}
			p.FilterSamplesByName(lockFuncRE, nil, nil, nil)
			var focused int64
			for _, s := range p.Sample {
				focused += s.Value[0]
			}
			if focused != c.Lock {
				t.Errorf("Lock = %d, pprof's focus on the lock functions keeps %d samples", c.Lock, focused)
			}

			// Every heap-lock sample has an allocator frame; check the
			// count from the other side: samples with both a lock frame and
			// an allocator frame bound it from above.
			p, _ = profile.ParseData(data)
			var both int64
			for _, s := range p.Sample {
				var hasLock, hasAlloc bool
				for _, l := range s.Location {
					for _, ln := range l.Line {
						hasLock = hasLock || IsLockFrame(ln.Function.Name)
						hasAlloc = hasAlloc || IsAllocatorFrame(ln.Function.Name)
					}
				}
				if hasLock && hasAlloc {
					both += s.Value[0]
				}
			}
			if c.HeapLock > both {
				t.Errorf("HeapLock = %d exceeds the %d samples holding both a lock and an allocator frame", c.HeapLock, both)
			}

			for _, kind := range Kinds {
				s, err := c.Share(kind, 0.95)
				if err != nil {
					t.Fatal(err)
				}
				if !(s.Lo <= s.Value && s.Value <= s.Hi) || s.Lo < 0 || s.Hi > 1 {
					t.Errorf("%s = %v: the interval must hold the value within [0, 1]", kind, s)
				}
			}
		})
	}
}

func TestShareUnknownKind(t *testing.T) {
	if _, err := (Counts{Total: 1}).Share("cpu-share", 0.95); err == nil {
		t.Error("unknown share kind gave no error")
	}
}

func TestWilson(t *testing.T) {
	tests := []struct {
		hits, total int64
		conf        float64
		lo, hi      float64
	}{
		// Textbook values: z = 1.959964.
		{0, 10, 0.95, 0, 0.277533},
		{10, 10, 0.95, 0.722467, 1},
		{5, 10, 0.95, 0.236590, 0.763410},
		{0, 0, 0.95, 0, 1},
		// A wider level widens the interval.
		{5, 10, 0.99, 0.184, 0.816},
	}
	for _, tt := range tests {
		lo, hi := Wilson(tt.hits, tt.total, tt.conf)
		tol := 1e-5
		if tt.conf == 0.99 {
			tol = 1e-3
		}
		if math.Abs(lo-tt.lo) > tol || math.Abs(hi-tt.hi) > tol {
			t.Errorf("Wilson(%d, %d, %g) = [%.6f, %.6f], want [%.6f, %.6f]", tt.hits, tt.total, tt.conf, lo, hi, tt.lo, tt.hi)
		}
	}
}

func TestNewShareClamps(t *testing.T) {
	s := NewShare(12, 10, 7)
	if s.Hits != 10 || s.Value != 1 || s.Confidence != 0.95 || s.Hi != 1 {
		t.Errorf("NewShare(12, 10, 7) = %+v; want hits clamped to 10 and level 0.95", s)
	}
	if s := NewShare(3, -1, 0.95); s.Total != 0 || !math.IsNaN(s.Value) || s.Lo != 0 || s.Hi != 1 || s.String() != "no samples" {
		t.Errorf("NewShare(3, -1) = %+v (%s); want an empty share", s, s)
	}
}

// TestNewDiff checks Newcombe's (1998) worked example (a): 56/70 − 48/80
// has the hybrid score interval [0.0524, 0.3339].
func TestNewDiff(t *testing.T) {
	d := NewDiff(NewShare(56, 70, 0.95), NewShare(48, 80, 0.95))
	if math.Abs(d.Value-0.2) > 1e-9 || math.Abs(d.Lo-0.0524) > 1e-4 || math.Abs(d.Hi-0.3339) > 1e-4 {
		t.Errorf("diff = %.4f [%.4f, %.4f], want 0.2000 [0.0524, 0.3339]", d.Value, d.Lo, d.Hi)
	}
	if e := NewDiff(NewShare(1, 2, 0.95), NewShare(0, 0, 0.95)); !math.IsNaN(e.Value) || e.Lo != -1 || e.Hi != 1 {
		t.Errorf("diff with an empty share = %+v, want NaN in [-1, 1]", e)
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{"contended.pprof", "quiet.pprof"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	var buf bytes.Buffer
	if err := synth(f, cpuTypes, map[string][]int64{"runtime.lock2;runtime.(*mheap).alloc": {1, 1}}).WriteUncompressed(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("garbage"))
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if c.HeapLock > c.Lock || c.Lock > c.Total || c.HeapLock < 0 {
			t.Errorf("counts %+v violate 0 <= HeapLock <= Lock <= Total", c)
		}
	})
}
