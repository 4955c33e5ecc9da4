package gotest

import (
	"os"
	"time"
)

// Usage is what one benchmark process cost: its CPU time (user + system,
// every thread of the process, from the operating system's accounting of
// the waited-for child: getrusage on Unix) and its wall time from start to
// exit. CPU time excludes the time the process was runnable but not
// running (preempted by a neighbour), and includes the garbage collector's
// work on other threads.
type Usage struct {
	CPU  time.Duration
	Wall time.Duration
}

func (u *Usage) record(st *os.ProcessState, started time.Time) {
	if u == nil {
		return
	}
	u.Wall = time.Since(started)
	if st != nil {
		u.CPU = st.UserTime() + st.SystemTime()
	}
}

// CPUPerOp derives a benchmark's CPU seconds per operation from two
// processes of the same benchmark at fixed iteration counts: one at n
// iterations (-test.benchtime=<n>x) that used cpu, and a baseline at m < n
// iterations that used base. Both pay the same process start, test set-up
// and benchmark set-up (the testing package's one-iteration probe plus one
// call at the fixed count, or a single b.Loop call), so the difference is
// the CPU time of n−m iterations. ok is false when m ≥ n or the
// difference is not positive.
func CPUPerOp(cpu time.Duration, n int, base time.Duration, m int) (perOp float64, ok bool) {
	if m >= n || cpu <= base {
		return 0, false
	}
	return (cpu - base).Seconds() / float64(n-m), true
}
