package gateway

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// A Router resolves a request to the index of its route in the table it
// was built from, with the route's parameters, or to -1 (404).
//
// Match may reuse the returned slice on its next call; a Router is used
// by one goroutine at a time.
type Router interface {
	Match(r *http.Request) (route int, params []Param)
}

// Routers lists the router variants in benchmark order.
var Routers = []string{"hashmap", "trie", "servemux"}

// NewRouter builds the named router variant over routes.
func NewRouter(name string, routes []Route) (Router, error) {
	switch name {
	case "hashmap":
		return newHashRouter(routes), nil
	case "trie":
		return newTrie(routes), nil
	case "servemux":
		return newMuxRouter(routes)
	}
	return nil, fmt.Errorf("unknown router %q: pick one of %s", name, strings.Join(Routers, ", "))
}

// ExactRouter is article D's “哈希映射(精确路径)”: one map of the table's
// static paths, and nothing else; a path no static route has, a
// parametrised route's included, is a 404. It serves StaticMix, not Mix.
type ExactRouter struct{ static map[string]int }

// NewExactRouter builds an ExactRouter over the static routes of routes.
func NewExactRouter(routes []Route) *ExactRouter {
	e := &ExactRouter{static: map[string]int{}}
	for i, r := range routes {
		if r.Static() {
			e.static[r.Pattern] = i
		}
	}
	return e
}

// Match looks the path up in the map.
func (e *ExactRouter) Match(r *http.Request) (int, []Param) {
	if i, ok := e.static[r.URL.Path]; ok {
		return i, nil
	}
	return -1, nil
}

// NewRequest returns a GET request for path, as a server would hand it to
// a handler.
func NewRequest(path string) *http.Request {
	return &http.Request{Method: http.MethodGet, URL: &url.URL{Path: path}, Host: "gateway", RequestURI: path, Header: http.Header{}}
}

// segments splits a pattern or path after its leading slash.
func segments(p string) []string { return strings.Split(strings.TrimPrefix(p, "/"), "/") }

func isParam(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

// hashRouter is the article's hash-map router: static routes in one map
// keyed by their path; parametrised routes, as the parameter fallback, in
// a map keyed by segment count and the literal prefix before the first
// parameter, each key holding a short candidate list scanned segment by
// segment. A lookup tries the static map, then the fallback from the
// longest literal prefix down, so the most specific route wins.
type hashRouter struct {
	static   map[string]int
	fallback map[string][]hashCand
	maxLit   int // longest literal prefix, in segments, of any parametrised route
	params   []Param
	segs     []string
	key      []byte
}

type hashCand struct {
	route int
	segs  []string // the pattern's segments; "" marks a parameter
	names []string
}

func hashKey(n int, prefix []string) string {
	return strconv.Itoa(n) + "\x00" + strings.Join(prefix, "/")
}

func newHashRouter(routes []Route) *hashRouter {
	h := &hashRouter{static: map[string]int{}, fallback: map[string][]hashCand{}}
	for i, r := range routes {
		if r.Static() {
			h.static[r.Pattern] = i
			continue
		}
		segs := segments(r.Pattern)
		c := hashCand{route: i, segs: make([]string, len(segs)), names: r.Params}
		lit := -1
		for j, s := range segs {
			if isParam(s) {
				if lit < 0 {
					lit = j
				}
				continue
			}
			c.segs[j] = s
		}
		h.maxLit = max(h.maxLit, lit)
		k := hashKey(len(segs), segs[:lit])
		h.fallback[k] = append(h.fallback[k], c)
	}
	// Within a key, the more specific candidate first: at the first
	// segment where two differ, a literal before a parameter.
	for _, cs := range h.fallback {
		slices.SortFunc(cs, func(a, b hashCand) int {
			for j := range a.segs {
				if (a.segs[j] == "") != (b.segs[j] == "") {
					if a.segs[j] == "" {
						return 1
					}
					return -1
				}
			}
			return 0
		})
	}
	return h
}

func (h *hashRouter) Match(r *http.Request) (int, []Param) {
	path := r.URL.Path
	if i, ok := h.static[path]; ok {
		return i, nil
	}
	h.segs = appendSegments(h.segs[:0], path)
	segs := h.segs
	key := h.key
	for lit := min(h.maxLit, len(segs)-1); lit >= 0; lit-- {
		// The key of hashKey, built without allocating for the lookup.
		key = key[:0]
		key = strconv.AppendInt(key, int64(len(segs)), 10)
		key = append(key, 0)
		for j, s := range segs[:lit] {
			if j > 0 {
				key = append(key, '/')
			}
			key = append(key, s...)
		}
		for _, c := range h.fallback[string(key)] {
			if ps, ok := h.scan(c, segs); ok {
				h.key = key
				return c.route, ps
			}
		}
	}
	h.key = key
	return -1, nil
}

func (h *hashRouter) scan(c hashCand, segs []string) ([]Param, bool) {
	ps := h.params[:0]
	k := 0
	for j, s := range c.segs {
		if s == "" {
			if segs[j] == "" {
				return nil, false
			}
			ps = append(ps, Param{Key: c.names[k], Value: segs[j]})
			k++
			continue
		}
		if s != segs[j] {
			return nil, false
		}
	}
	h.params = ps
	return ps, true
}

// appendSegments splits path after its leading slash into dst without
// allocating new strings.
func appendSegments(dst []string, path string) []string {
	path = strings.TrimPrefix(path, "/")
	for {
		i := strings.IndexByte(path, '/')
		if i < 0 {
			return append(dst, path)
		}
		dst = append(dst, path[:i])
		path = path[i+1:]
	}
}

// muxRouter is net/http.ServeMux with Go 1.22 patterns: each route
// registered as its pattern, a handler per route that records its index
// and reads its parameters with Request.PathValue, and a catch-all "/"
// (the least specific pattern) standing for 404.
type muxRouter struct {
	mux    *http.ServeMux
	routes []Route
	w      nopWriter
	route  int
	params []Param
}

func newMuxRouter(routes []Route) (m *muxRouter, err error) {
	m = &muxRouter{mux: http.NewServeMux(), routes: routes, w: nopWriter{h: http.Header{}}}
	defer func() {
		// ServeMux panics on a conflicting or malformed pattern.
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("registering routes with net/http.ServeMux: %v", p)
		}
	}()
	for i, r := range routes {
		m.mux.Handle(r.Pattern, muxHandler{m: m, route: i})
	}
	m.mux.Handle("/", muxHandler{m: m, route: -1})
	return m, nil
}

type muxHandler struct {
	m     *muxRouter
	route int
}

func (h muxHandler) ServeHTTP(_ http.ResponseWriter, r *http.Request) {
	m := h.m
	m.route = h.route
	m.params = m.params[:0]
	if h.route >= 0 {
		for _, name := range m.routes[h.route].Params {
			m.params = append(m.params, Param{Key: name, Value: r.PathValue(name)})
		}
	}
}

func (m *muxRouter) Match(r *http.Request) (int, []Param) {
	m.route = -2
	m.mux.ServeHTTP(&m.w, r)
	if m.route == -2 {
		// ServeMux answered itself (a redirect for a path it cleans):
		// not a route of the table.
		return -1, nil
	}
	if m.route < 0 {
		return -1, nil
	}
	return m.route, m.params
}

// nopWriter is a ResponseWriter that discards what it is given.
type nopWriter struct {
	h      http.Header
	status int
}

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(code int)        { w.status = code }
