package benchmetrics

import "testing"

// overheadInput is the fixed input of the overhead workload.
var overheadInput = [16]uint64{
	0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9, 0x94d049bb133111eb, 0x2545f4914f6cdd1d,
	0x5851f42d4c957f2d, 0x14057b7ef767814f, 0xda942042e4dd58b5, 0xc6a4a7935bd1e995,
	0x87c37b91114253d5, 0x4cf5ad432745937f, 0x52dce729da3ed3b9, 0x38495ab5c33e9ad7,
	0xff51afd7ed558ccd, 0xc4ceb9fe1a85ec53, 0x27d4eb2f165667c5, 0x165667b19e3779f9,
}

var overheadSink uint64

// overheadWork hashes overheadInput three times over: deterministic,
// allocation-free, about 50ns. It only loads memory and keeps its state in
// registers, so its speed depends little on where the stack or the
// testing.B happen to lie.
func overheadWork() uint64 {
	h := uint64(0xcbf29ce484222325)
	for range 3 {
		for _, v := range overheadInput {
			h = (h ^ v) * 0x100000001b3
			h ^= h >> 29
		}
	}
	return h
}

// BenchmarkOverhead runs the same ~50ns workload without and with Measure,
// so benchstat -col /helper shows what Measure costs. Both sub-benchmarks
// run the same function, so the timed loop is the same machine code.
func BenchmarkOverhead(b *testing.B) {
	b.Run("helper=off", func(b *testing.B) { runOverhead(b, false) })
	b.Run("helper=on", func(b *testing.B) { runOverhead(b, true) })
}

func runOverhead(b *testing.B, helper bool) {
	if helper {
		defer Measure(b)()
	}
	for b.Loop() {
		overheadSink += overheadWork()
	}
}
