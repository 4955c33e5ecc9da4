package gateway

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestRoutesDeterministicUnique(t *testing.T) {
	a, err := Routes(MaxRoutes, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Routes(MaxRoutes, 1)
	if len(a) != MaxRoutes {
		t.Fatalf("got %d routes, want %d", len(a), MaxRoutes)
	}
	seen := map[string]bool{}
	static := 0
	for i, r := range a {
		if seen[r.Pattern] {
			t.Fatalf("route %d %s is a duplicate", i, r.Pattern)
		}
		seen[r.Pattern] = true
		if r.Pattern != b[i].Pattern || !slices.Equal(r.Params, b[i].Params) {
			t.Fatalf("route %d differs between two generations: %s vs %s", i, r.Pattern, b[i].Pattern)
		}
		if r.Static() {
			static++
		}
		if strings.Count(r.Pattern, "{") != len(r.Params) {
			t.Fatalf("route %s lists parameters %v", r.Pattern, r.Params)
		}
	}
	// A realistic table mixes both kinds.
	if static < MaxRoutes/10 || static > MaxRoutes/2 {
		t.Errorf("%d of %d routes are static; want a mix", static, MaxRoutes)
	}
	c, _ := Routes(MaxRoutes, 2)
	if slices.EqualFunc(a, c, func(x, y Route) bool { return x.Pattern == y.Pattern }) {
		t.Error("seeds 1 and 2 give the same table")
	}
	small, _ := Routes(100, 1)
	for i := range small {
		if small[i].Pattern != a[i].Pattern {
			t.Fatalf("Routes(100) is not a prefix of Routes(%d) at %d", MaxRoutes, i)
		}
	}
}

func TestRoutesRange(t *testing.T) {
	for _, n := range []int{0, -1, MaxRoutes + 1} {
		if _, err := Routes(n, 1); err == nil {
			t.Errorf("Routes(%d) gave no error", n)
		}
	}
}

func TestMixHitsAndMisses(t *testing.T) {
	routes, _ := Routes(1000, 1)
	ls := Mix(routes, 2000, 90, 7)
	misses := 0
	for _, l := range ls {
		if l.Route < 0 {
			misses++
		}
	}
	if misses < 100 || misses > 300 {
		t.Errorf("%d misses of 2000 at 90%% hits", misses)
	}
	if again := Mix(routes, 2000, 90, 7); !slices.EqualFunc(ls, again, func(a, b Lookup) bool { return a.Path == b.Path && a.Route == b.Route }) {
		t.Error("Mix is not deterministic")
	}
}

// TestRouters: every variant resolves every route of the full table
// with its parameters, and every generated miss to 404.
func TestRouters(t *testing.T) {
	for _, n := range []int{1, 100, MaxRoutes} {
		routes, _ := Routes(n, 1)
		lookups := Mix(routes, 5000, 50, 3)
		for _, name := range Routers {
			r, err := NewRouter(name, routes)
			if err != nil {
				t.Fatalf("%s with %d routes: %v", name, n, err)
			}
			if err := Gate(r, routes, lookups, 11); err != nil {
				t.Errorf("%s with %d routes: %v", name, n, err)
			}
		}
	}
}

// TestExactRouter: the exact-path map resolves every lookup of a static
// mix (static hits, misses) and serves no parametrised route, which the
// full gate therefore catches.
func TestExactRouter(t *testing.T) {
	routes, _ := Routes(MaxRoutes, 1)
	static := StaticMix(routes, 5000, 90, 3)
	for _, l := range static {
		if l.Route >= 0 && !routes[l.Route].Static() {
			t.Fatalf("StaticMix drew %s, a parametrised route", routes[l.Route].Pattern)
		}
	}
	e := NewExactRouter(routes)
	if err := GateLookups(e, routes, static); err != nil {
		t.Errorf("exact on its static mix: %v", err)
	}
	if err := Gate(e, routes, nil, 1); err == nil {
		t.Error("exact passed the full gate without serving parametrised routes")
	}
}

// TestGateCatchesWrongRouter: the gate reports a router that returns the
// wrong route or wrong parameters.
func TestGateCatchesWrongRouter(t *testing.T) {
	routes, _ := Routes(200, 1)
	for _, tt := range []struct {
		name string
		r    Router
	}{
		{"always 404", routerFunc(func(string) (int, []Param) { return -1, nil })},
		{"wrong value", wrapRouter(newTrie(routes), func(ps []Param) []Param {
			if len(ps) > 0 {
				ps[0].Value += "x"
			}
			return ps
		})},
	} {
		if err := Gate(tt.r, routes, nil, 1); err == nil {
			t.Errorf("%s: the gate passed it", tt.name)
		}
	}
}

func TestNewRouterUnknown(t *testing.T) {
	if _, err := NewRouter("nope", nil); err == nil || !strings.Contains(err.Error(), "hashmap") {
		t.Errorf("err = %v, want the list of routers", err)
	}
}

type routerFunc func(path string) (int, []Param)

func (f routerFunc) Match(r *http.Request) (int, []Param) { return f(r.URL.Path) }

func wrapRouter(r Router, f func([]Param) []Param) Router {
	return routerFunc(func(path string) (int, []Param) {
		i, ps := r.Match(NewRequest(path))
		return i, f(ps)
	})
}
