package bitset

// plantedSum is a planted slowdown of Equal, NextSet and InPlaceDifference:
// it reads every 16th word of the set, which they then call first
// (docs/varlab.md). Copy it into a copy of github.com/bits-and-blooms/bitset
// and insert the calls with
//
//	sed -i -E 's/^func \(b \*BitSet\) (Equal|NextSet|InPlaceDifference)\(.*\{$/&\n\tplantedSum(b)/' bitset.go
func plantedSum(b *BitSet) {
	var s uint64
	for i := 0; i < len(b.set); i += 16 {
		s += b.set[i]
	}
	plantedSink += s
}

var plantedSink uint64
