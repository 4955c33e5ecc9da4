package gateway

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Gate checks a router before it is timed: every route, instantiated
// with seeded parameter values, must resolve to its own index with those
// parameters, and every lookup of lookups must resolve as it says (misses
// to -1, the 404). It returns the first difference, or nil.
func Gate(r Router, routes []Route, lookups []Lookup, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x6a7e))
	for i, rt := range routes {
		path, ps := Instantiate(rt, rng)
		if err := check(r, routes, Lookup{Path: path, Route: i, Params: ps}); err != nil {
			return err
		}
	}
	for _, l := range lookups {
		if err := check(r, routes, l); err != nil {
			return err
		}
	}
	return nil
}

func check(r Router, routes []Route, want Lookup) error {
	got, ps := r.Match(NewRequest(want.Path))
	name := func(i int) string {
		if i < 0 {
			return "404"
		}
		return fmt.Sprintf("route %d (%s)", i, routes[i].Pattern)
	}
	if got != want.Route {
		return fmt.Errorf("GET %s: got %s, want %s", want.Path, name(got), name(want.Route))
	}
	if got >= 0 && !slices.Equal(ps, want.Params) && !(len(ps) == 0 && len(want.Params) == 0) {
		return fmt.Errorf("GET %s → %s: parameters %v, want %v", want.Path, name(got), ps, want.Params)
	}
	return nil
}

// GateLookups checks a router on lookups alone: each must resolve as it
// says. An ExactRouter, which serves static paths only, is checked this
// way on a StaticMix.
func GateLookups(r Router, routes []Route, lookups []Lookup) error {
	for _, l := range lookups {
		if err := check(r, routes, l); err != nil {
			return err
		}
	}
	return nil
}
