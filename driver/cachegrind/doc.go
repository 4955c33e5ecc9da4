// Package cachegrind measures instructions per op of one Go benchmark cell
// under valgrind's Cachegrind, and which functions those instructions are
// spent in.
//
// A cell runs twice under
//
//	valgrind --tool=cachegrind --cache-sim=no <test binary> -test.bench=<cell> -test.benchtime=Nx
//
// once at N and once at 2N iterations. Everything that does not depend on
// the iteration count — process start-up, the runtime's initialisation,
// the testing package's ramp-up run with b.N = 1, exit — is in both counts
// and cancels in the difference, so
//
//	instructions/op = (I(2N) − I(N)) / N
//
// and the same difference per function (Cachegrind attributes every
// instruction to the symbol it executed in, which in a Go binary is the Go
// function, method or closure) gives each function's instructions per op.
// [Calibrate] chooses N per cell so that the difference dominates the
// run-to-run spread of the counts (the runtime's background threads —
// sysmon, the garbage collector, the scheduler — vary by tens of thousands
// of instructions from run to run).
//
// The benchmark runs with GOMAXPROCS=1 unless the cell names a -test.cpu
// value; valgrind runs one thread at a time whatever GOMAXPROCS says, so a
// multi-goroutine benchmark is measured serialised: its instruction count
// is meaningful, its parallel speed-up is not visible.
//
// Every run under valgrind has GODEBUG=cpu.rdtscp=off added to its
// environment ([NoRDTSCP]): where the CPU reports RDTSCP the Go runtime
// reads its clock with it, and some valgrind builds cannot decode it on
// some CPUs, so every cell would die of SIGILL.
//
// With Options.CacheSim, Cachegrind also simulates an L1 and last-level
// cache and [Measurement.PerOp] holds the simulated misses per op
// (I1mr, ILmr, D1mr, DLmr, D1mw, DLmw); these model a cache, they are not
// the machine's.
//
// [Parse] reads Cachegrind's output format; [Changes] ranks the functions
// whose instructions per op changed between two measurements and gives
// each its share of the total change.
package cachegrind
