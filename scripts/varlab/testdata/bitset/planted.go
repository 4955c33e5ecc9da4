package bitset

// A planted slowdown of Equal, NextSet and InPlaceDifference, for varlab
// layouts -planted (docs/varlab.md): each first reads every 16th word of
// the set, then runs the original method, renamed planted<Name>, whose code
// is left as it was. Copy this file into a copy of
// github.com/bits-and-blooms/bitset and rename the three with
//
//	sed -i -E 's/^func \(b \*BitSet\) (Equal|NextSet|InPlaceDifference)\(/func (b *BitSet) planted\1(/' bitset.go

// Equal tests the equivalence of two BitSets, after the planted work.
func (b *BitSet) Equal(c *BitSet) bool {
	plantedSum(b)
	return b.plantedEqual(c)
}

// NextSet returns the next set bit from i, after the planted work.
func (b *BitSet) NextSet(i uint) (uint, bool) {
	plantedSum(b)
	return b.plantedNextSet(i)
}

// InPlaceDifference removes compare's bits from b, after the planted work.
func (b *BitSet) InPlaceDifference(compare *BitSet) {
	plantedSum(b)
	b.plantedInPlaceDifference(compare)
}

//go:noinline
func plantedSum(b *BitSet) {
	var s uint64
	for i := 0; i < len(b.set); i += 16 {
		s += b.set[i]
	}
	plantedSink += s
}

var plantedSink uint64
