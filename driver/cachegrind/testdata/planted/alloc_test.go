package planted

import "testing"

type node struct {
	next *node
	val  [6]uint64
}

var keep *node

// BenchmarkAlloc allocates a short linked list per op, keeping the last one
// alive, so the garbage collector has work in proportion to b.N.
func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		var head *node
		for j := 0; j < 8; j++ {
			head = &node{next: head, val: [6]uint64{uint64(i), uint64(j)}}
		}
		keep = head
	}
}
