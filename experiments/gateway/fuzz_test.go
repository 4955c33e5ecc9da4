package gateway

import (
	"slices"
	"strings"
	"testing"
)

// FuzzRouters: request paths are outside input. For any path the hash
// map and the trie agree on the route and its parameters, and ServeMux
// does not panic (it cleans and unescapes paths, so it may differ on
// paths such as "//x" or "/a/%2F").
func FuzzRouters(f *testing.F) {
	routes, _ := Routes(2000, 1)
	for _, l := range Mix(routes, 20, 70, 5) {
		f.Add(l.Path)
	}
	for _, s := range []string{"", "/", "//", "/api", "/api/v1/", "/api/v1/shops//x", "/healthz/", "/api/v1/shops/%2F", "/api/../healthz"} {
		f.Add(s)
	}
	hash, trie := newHashRouter(routes), newTrie(routes)
	mux, err := newMuxRouter(routes)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req := NewRequest(path)
		hi, hp := hash.Match(req)
		hp = slices.Clone(hp)
		ti, tp := trie.Match(req)
		if hi != ti || hi >= 0 && !slices.Equal(hp, tp) {
			t.Fatalf("GET %q: hash map → %d %v, trie → %d %v", path, hi, hp, ti, tp)
		}
		mi, _ := mux.Match(req)
		if mi < -1 || mi >= len(routes) {
			t.Fatalf("GET %q: ServeMux → %d", path, mi)
		}
	})
}
