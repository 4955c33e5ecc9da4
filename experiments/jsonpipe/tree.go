package jsonpipe

import (
	"strings"

	"github.com/tidwall/gjson"
)

// A tnode is one value of a parsed document as article A's parser holds it
// (§2.4: “Arena alloc: key string / value / object node”): its kind, a
// string value or a number's text, and for an object or array its members, each
// with its key (empty in an array). The tree variants build one from the
// gjson result instead of map[string]any, so that what the build stage
// allocates is what that parser allocates: key strings, values and object
// nodes, all of which an arena can hold (a Go map cannot).
type tnode struct {
	kind gjson.Type // gjson.JSON with obj set for an object, else an array
	obj  bool
	str  string // a string's value, a number's text
	kids []tmember
}

type tmember struct {
	key string
	val *tnode
}

// treeAlloc is where a tree builder takes memory from: the heap or an
// arena.
type treeAlloc interface {
	node() *tnode
	members(n, c int) []tmember
	str(s string) string
}

// heapAlloc takes every node, member slice and string copy from the heap.
type heapAlloc struct{}

func (heapAlloc) node() *tnode { return new(tnode) }

func (heapAlloc) members(n, c int) []tmember { return make([]tmember, n, c) }

func (heapAlloc) str(s string) string { return strings.Clone(s) }

// buildTree walks r into a tree, copying every key and string value out
// of the document, each node and member slice from al.
func buildTree(al treeAlloc, r gjson.Result) *tnode {
	n := al.node()
	n.kind = r.Type
	switch r.Type {
	case gjson.String:
		n.str = al.str(r.Str)
	case gjson.Number:
		n.str = al.str(r.Raw) // the number's text: copied as the parser copies a value
	case gjson.JSON:
		n.obj = r.IsObject()
		r.ForEach(func(k, v gjson.Result) bool {
			if len(n.kids) == cap(n.kids) {
				grown := al.members(len(n.kids), max(4, 2*cap(n.kids)))
				copy(grown, n.kids)
				n.kids = grown
			}
			m := tmember{val: buildTree(al, v)}
			if n.obj {
				m.key = al.str(k.Str)
			}
			n.kids = append(n.kids, m)
			return true
		})
	}
	return n
}

// appendTree writes n to dst as compact JSON.
func appendTree(dst []byte, n *tnode) []byte {
	switch n.kind {
	case gjson.Null:
		return append(dst, "null"...)
	case gjson.False:
		return append(dst, "false"...)
	case gjson.True:
		return append(dst, "true"...)
	case gjson.Number:
		return append(dst, n.str...)
	case gjson.String:
		return appendString(dst, n.str)
	}
	open, end := byte('['), byte(']')
	if n.obj {
		open, end = '{', '}'
	}
	dst = append(dst, open)
	for i, m := range n.kids {
		if i > 0 {
			dst = append(dst, ',')
		}
		if n.obj {
			dst = appendString(dst, m.key)
			dst = append(dst, ':')
		}
		dst = appendTree(dst, m.val)
	}
	return append(dst, end)
}

// treePipe is the article's parser on the heap: gjson.ParseBytes, a
// tree of nodes with copied keys and strings (buildTree), written out by
// appendTree into a fresh slice.
type treePipe struct{ out [1][]byte }

func (p *treePipe) Run(doc []byte, m *Meter, sink func([][]byte)) error {
	m.start()
	if !gjson.ValidBytes(doc) {
		return ErrInvalid
	}
	r := gjson.ParseBytes(doc)
	m.lap(Parse)
	t := buildTree(heapAlloc{}, r)
	m.lap(Build)
	out := appendTree(make([]byte, 0, len(doc)), t)
	m.lap(Marshal)
	if sink != nil {
		sink(one(&p.out, out))
	}
	return nil
}
