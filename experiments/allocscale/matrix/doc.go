// Package matrix tests the allocscale experiment's configuration matrix
// through the engine: every config of its spec builds, or is recorded as
// unbuildable while the others run. It holds no code of its own; the test
// lives in a package apart from the benchmarks because it needs the engine
// and the store, which the go1.22 config's test binary must not import.
package matrix
