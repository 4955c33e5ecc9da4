// Package profshare measures, from a Go CPU profile, the share of samples
// spent in the runtime's internal locks, and the part of it taken while
// allocating from the heap, each with a 95% (or any) binomial confidence
// interval.
//
// # What is counted
//
// A CPU profile is a list of samples, each a stack of frames from the
// running function (the leaf) out to the goroutine's first function (the
// root), with a count. Inlined calls are frames of their own, in the order
// pprof records them. A sample's count is its value of the sample type
// "samples/count" (the first sample type when the profile has no such
// type).
//
// A lock frame is a frame of one of the runtime functions that acquire or
// release a runtime-internal lock (a runtime.mutex, not sync.Mutex):
//
//	runtime.lock  runtime.lock2  runtime.lockWithRank
//	runtime.unlock  runtime.unlock2  runtime.unlock2Wake  runtime.unlockWithRank
//
// Time in the functions they call (spinning in procyield or osyield,
// sleeping in futexsleep, waking in futexwakeup) sits under a lock frame, so
// it counts too. A sync.Mutex that has to wait reaches the runtime's
// semaphore table, whose lock is a runtime lock: that wait counts as well.
//
// An allocator frame is a frame of a method of the runtime's heap
// allocator: its name begins with one of
//
//	runtime.(*mheap).  runtime.(*mcentral).  runtime.(*mcache).
//	runtime.(*pageAlloc).  runtime.(*pageCache).  runtime.(*scavengerState).
//
// These are the paths that take mheap_.lock (span allocation and freeing,
// heap growth, stack spans, sweeping that returns spans, the scavenger).
//
// Two counts are kept besides the total:
//
//   - Lock: samples whose stack holds a lock frame ("lock-share").
//   - HeapLock: samples whose innermost lock frame has an allocator frame
//     among its callers, i.e. the lock was taken on behalf of the heap
//     allocator ("heap-lock-share"). This is what a flame graph shows as
//     "mheap_.lock" contention; a stack does not say which mutex a lock
//     frame holds, so the allocator frames stand for it.
//
// # Intervals
//
// A share is hits out of total samples; its interval is the Wilson score
// interval for a binomial proportion. It treats samples as independent
// draws, which consecutive samples of one run are not quite, so read it as
// the least uncertainty the profile allows.
package profshare

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/google/pprof/profile"
)

// Counts is what one CPU profile says about runtime locks.
type Counts struct {
	Total    int64 // samples in the profile
	Lock     int64 // samples whose stack holds a runtime lock frame
	HeapLock int64 // samples whose lock frame was reached from the heap allocator
}

// Names of the shares, as claims and reports spell them.
const (
	LockShare     = "lock-share"
	HeapLockShare = "heap-lock-share"
)

// Kinds lists the share names in the order reports show them.
var Kinds = []string{HeapLockShare, LockShare}

// Hits returns the count behind the named share and whether the name is
// known.
func (c Counts) Hits(kind string) (int64, bool) {
	switch kind {
	case LockShare:
		return c.Lock, true
	case HeapLockShare:
		return c.HeapLock, true
	}
	return 0, false
}

// Share returns the named share with its interval at the given confidence
// level (such as 0.95). An unknown kind is an error.
func (c Counts) Share(kind string, confidence float64) (Share, error) {
	hits, ok := c.Hits(kind)
	if !ok {
		return Share{}, fmt.Errorf("profshare: unknown share %q; use %q or %q", kind, HeapLockShare, LockShare)
	}
	return NewShare(hits, c.Total, confidence), nil
}

// lockFuncs are the runtime functions that acquire or release a runtime
// mutex.
var lockFuncs = map[string]bool{
	"runtime.lock":           true,
	"runtime.lock2":          true,
	"runtime.lockWithRank":   true,
	"runtime.unlock":         true,
	"runtime.unlock2":        true,
	"runtime.unlock2Wake":    true,
	"runtime.unlockWithRank": true,
}

// allocPrefixes begin the names of the heap allocator's methods.
var allocPrefixes = []string{
	"runtime.(*mheap).",
	"runtime.(*mcentral).",
	"runtime.(*mcache).",
	"runtime.(*pageAlloc).",
	"runtime.(*pageCache).",
	"runtime.(*scavengerState).",
}

// IsLockFrame reports whether fn, a fully qualified function name, acquires
// or releases a runtime lock.
func IsLockFrame(fn string) bool { return lockFuncs[fn] }

// IsAllocatorFrame reports whether fn is a method of the runtime's heap
// allocator (closures inside such methods included).
func IsAllocatorFrame(fn string) bool {
	for _, p := range allocPrefixes {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// Classify says whether a stack, given leaf first as function names, holds
// a lock frame and whether its innermost lock frame has an allocator frame
// among its callers.
func Classify(stack []string) (lock, heapLock bool) {
	for i, fn := range stack {
		if !IsLockFrame(fn) {
			continue
		}
		for _, caller := range stack[i+1:] {
			if IsAllocatorFrame(caller) {
				return true, true
			}
		}
		return true, false
	}
	return false, false
}

// FromProfile counts the samples of a parsed CPU profile.
func FromProfile(p *profile.Profile) (Counts, error) {
	if p == nil {
		return Counts{}, errors.New("profshare: nil profile")
	}
	idx, err := countIndex(p)
	if err != nil {
		return Counts{}, err
	}
	var c Counts
	var stack []string
	for _, s := range p.Sample {
		if s == nil || idx >= len(s.Value) {
			return Counts{}, fmt.Errorf("profshare: a sample has %d values, want at least %d; the profile is malformed", len(valuesOf(s)), idx+1)
		}
		n := s.Value[idx]
		if n < 0 {
			return Counts{}, fmt.Errorf("profshare: a sample has the negative count %d; a difference profile cannot be read as shares", n)
		}
		stack = stack[:0]
		for _, loc := range s.Location {
			if loc == nil {
				continue
			}
			for _, ln := range loc.Line {
				if ln.Function != nil {
					stack = append(stack, ln.Function.Name)
				}
			}
		}
		lock, heap := Classify(stack)
		if c.Total > math.MaxInt64-n {
			return Counts{}, errors.New("profshare: sample counts overflow int64; the profile is malformed")
		}
		c.Total += n
		if lock {
			c.Lock += n
		}
		if heap {
			c.HeapLock += n
		}
	}
	return c, nil
}

func valuesOf(s *profile.Sample) []int64 {
	if s == nil {
		return nil
	}
	return s.Value
}

// countIndex finds the sample value that counts samples.
func countIndex(p *profile.Profile) (int, error) {
	if len(p.SampleType) == 0 {
		return 0, errors.New("profshare: the profile has no sample types; is it a CPU profile?")
	}
	for i, st := range p.SampleType {
		if st != nil && st.Type == "samples" && st.Unit == "count" {
			return i, nil
		}
	}
	return 0, nil
}

// Read parses a CPU profile in the pprof protocol-buffer format, gzipped or
// not, and counts its samples.
func Read(r io.Reader) (Counts, error) {
	p, err := profile.Parse(r)
	if err != nil {
		return Counts{}, fmt.Errorf("profshare: parsing the profile: %w (is it a pprof CPU profile, as -test.cpuprofile writes?)", err)
	}
	return FromProfile(p)
}

// ReadFile reads and counts the CPU profile at path.
func ReadFile(path string) (Counts, error) {
	f, err := os.Open(path)
	if err != nil {
		return Counts{}, fmt.Errorf("profshare: %w (the run's artifacts may have been moved or deleted)", err)
	}
	defer f.Close()
	c, err := Read(f)
	if err != nil {
		return Counts{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
