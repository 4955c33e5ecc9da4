// Package planted holds a benchmark with known instruction-count ratios: v=b
// does 1.02 times the work of v=a, and v=c is an exact copy of v=a.
package planted

// workA runs rounds rounds of a xorshift generator.
//
//go:noinline
func workA(seed uint64, rounds int) uint64 {
	x := seed | 1
	for i := 0; i < rounds; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// workC is an exact copy of workA.
//
//go:noinline
func workC(seed uint64, rounds int) uint64 {
	x := seed | 1
	for i := 0; i < rounds; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// Rounds is the loop length of v=a and v=c; v=b runs RoundsB, 2% more.
const (
	Rounds  = 100
	RoundsB = 102
)
