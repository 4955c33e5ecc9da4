// Package gotest builds and runs Go test binaries for benchmarking.
//
// Its one job is to turn a package and a benchmark selection into Go
// benchmark records ([*benchfmt.Result]): [Compile] builds the package's
// test binary once per build environment and keeps it in a cache directory
// under a content-hash key ([Build.Key]); [Run] executes the binary for one
// benchmark selection with -test.count=1 and parses its output with [Parse];
// [Profile] makes a separate profiling pass (CPU, heap, mutex, block and an
// execution trace) that is never used for timing. [BenchRegex] builds an
// anchored -test.bench expression that selects exactly one sub-benchmark.
// A build with [Build.CPUTime] patches the toolchain's testing package so
// every result line also reports the timed loop's CPU time (cputime.go).
//
// The package knows nothing of storage, specs or reports.
//
// # Caching
//
// A build's key is a SHA-256 over everything that determines the binary:
// the toolchain version and target (GOVERSION, GOOS, GOARCH, the
// architecture levels, GOEXPERIMENT, CGO settings, GOFLAGS), the extra
// environment and build flags, go.mod, go.sum, go.work and go.work.sum,
// any default.pgo of the packages under test or -pgo file, and the
// contents of every source file (Go, cgo, assembly, syso and embedded
// files) of the package, its tests and all of its non-standard-library
// dependencies as listed by go list -deps -test, and, for a build with
// CPUTime, the hash of the patched testing files it overlays. Files of a module in the
// read-only module cache are represented by the module's path and version
// instead of being read, since the go command verifies them against go.sum
// and never changes them in place. The binary is written to a temporary
// directory inside the cache and renamed to <key>.test, so an interrupted
// build never leaves a partial binary behind.
//
// # Processes
//
// On Unix systems every child process (the go command, test binaries) runs
// in its own process group. When a run times out or its context is
// canceled, and again after every run ends, the whole group is killed, so
// no process a benchmark started outlives the run.
package gotest
