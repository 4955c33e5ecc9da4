package gateway

import (
	"net/http"
	"strings"
)

// trie is a radix tree over the bytes of the patterns, as httprouter
// builds one, but allowing a literal and a parameter at the same
// position (httprouter refuses such a table: "/shops/search" beside
// "/shops/:id" is a conflict there, though ServeMux accepts it). Static
// edges carry compressed byte prefixes; a parameter edge matches one
// non-empty segment. A lookup prefers the static edge and backtracks to
// the parameter edge, so the most specific route wins.
type trie struct {
	root   *trieNode
	routes []Route
	values []string // parameter values of the current lookup
	params []Param
}

type trieNode struct {
	prefix   string
	indices  string // first byte of each static child
	children []*trieNode
	param    *trieNode // the child matching one parameter segment
	route    int       // route ending here, or -1
}

func newTrieNode(prefix string) *trieNode { return &trieNode{prefix: prefix, route: -1} }

func newTrie(routes []Route) *trie {
	t := &trie{root: newTrieNode(""), routes: routes}
	for i, r := range routes {
		t.insert(r.Pattern, i)
	}
	return t
}

// tokens splits a pattern into literal runs and parameters ("" marks a
// parameter): "/a/{x}/b" → ["/a/", "", "/b"].
func tokens(pattern string) []string {
	var out []string
	for pattern != "" {
		i := strings.IndexByte(pattern, '{')
		if i < 0 {
			return append(out, pattern)
		}
		if i > 0 {
			out = append(out, pattern[:i])
		}
		out = append(out, "")
		j := strings.IndexByte(pattern[i:], '}')
		pattern = pattern[i+j+1:]
	}
	return out
}

func (t *trie) insert(pattern string, route int) {
	n := t.root
	for _, tok := range tokens(pattern) {
		if tok == "" {
			if n.param == nil {
				n.param = newTrieNode("")
			}
			n = n.param
			continue
		}
		n = n.insertStatic(tok)
	}
	n.route = route
}

// insertStatic walks or creates static edges for s below n and returns
// the node where s ends.
func (n *trieNode) insertStatic(s string) *trieNode {
	for s != "" {
		i := strings.IndexByte(n.indices, s[0])
		if i < 0 {
			c := newTrieNode(s)
			n.indices += s[:1]
			n.children = append(n.children, c)
			return c
		}
		c := n.children[i]
		l := commonPrefix(s, c.prefix)
		if l < len(c.prefix) {
			// Split c: a new node holds the common part, c keeps the rest.
			mid := newTrieNode(c.prefix[:l])
			c.prefix = c.prefix[l:]
			mid.indices = c.prefix[:1]
			mid.children = []*trieNode{c}
			n.children[i] = mid
			c = mid
		}
		n, s = c, s[l:]
	}
	return n
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func (t *trie) Match(r *http.Request) (int, []Param) {
	t.values = t.values[:0]
	route := t.root.lookup(r.URL.Path, &t.values)
	if route < 0 {
		return -1, nil
	}
	ps := t.params[:0]
	for i, name := range t.routes[route].Params {
		ps = append(ps, Param{Key: name, Value: t.values[i]})
	}
	t.params = ps
	return route, ps
}

// lookup matches path below n (n's own prefix not yet consumed).
func (n *trieNode) lookup(path string, values *[]string) int {
	if !strings.HasPrefix(path, n.prefix) {
		return -1
	}
	return n.below(path[len(n.prefix):], values)
}

// below matches what is left of the path after n.
func (n *trieNode) below(rest string, values *[]string) int {
	if rest == "" {
		return n.route
	}
	if i := strings.IndexByte(n.indices, rest[0]); i >= 0 {
		if r := n.children[i].lookup(rest, values); r >= 0 {
			return r
		}
	}
	if p := n.param; p != nil {
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			return -1
		}
		*values = append(*values, rest[:end])
		if r := p.below(rest[end:], values); r >= 0 {
			return r
		}
		*values = (*values)[:len(*values)-1]
	}
	return -1
}
