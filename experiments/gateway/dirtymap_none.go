//go:build go1.24

package gateway

import "sync"

// From Go 1.24 on a sync.Map is a concurrent hash-trie
// (internal/sync.HashTrieMap): it has no read map and no dirty map, so
// there is nothing to promote and DirtyPromotions counts none.

const dirtyMapNote = "sync.Map is a hash-trie without a dirty map (Go 1.24 and later)"

var layoutWorks = true

type promotionCounter struct{}

func newPromotionCounter([]*sync.Map) *promotionCounter { return &promotionCounter{} }

func (*promotionCounter) observe() {}

func (*promotionCounter) count() uint64 { return 0 }
