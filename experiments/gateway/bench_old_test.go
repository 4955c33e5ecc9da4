//go:build !go1.24

package gateway

import "testing"

// An older toolchain (a config with gotoolchain before go1.24) builds the
// map benchmark alone, for the sync.Map that still has a dirty map; the
// other benchmarks (bench_test.go) use the load generator and testing.B.Loop
// of the current toolchain, and skip themselves here.

const oldToolchainSkip = "measured with the current toolchain only: an older one runs BenchmarkMap alone"

func BenchmarkRoute(b *testing.B)   { b.Skip(oldToolchainSkip) }
func BenchmarkContext(b *testing.B) { b.Skip(oldToolchainSkip) }
func BenchmarkLog(b *testing.B)     { b.Skip(oldToolchainSkip) }
func BenchmarkLeak(b *testing.B)    { b.Skip(oldToolchainSkip) }
func BenchmarkParse(b *testing.B)   { b.Skip(oldToolchainSkip) }
