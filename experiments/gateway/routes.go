package gateway

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// MaxRoutes is the size of the article's route table: 12,847 routes.
const MaxRoutes = 12847

// A Route is one entry of a route table: a path pattern in
// net/http.ServeMux syntax ("/api/v2/shops/{shops_id}/orders") and the
// names of its parameters in order.
type Route struct {
	Pattern string
	Params  []string
}

// Static reports whether the route has no parameters.
func (r Route) Static() bool { return len(r.Params) == 0 }

// resources are the collection names of the generated REST API.
var resources = []string{
	"shops", "orders", "items", "customers", "products", "invoices", "payments", "shipments",
	"carts", "reviews", "coupons", "warehouses", "stock", "suppliers", "categories", "brands",
	"users", "sessions", "tokens", "webhooks", "events", "refunds", "returns", "addresses",
	"notifications", "subscriptions", "plans", "prices", "taxes", "regions", "stores", "employees",
	"roles", "permissions", "audits", "reports", "exports", "imports", "jobs", "files",
	"images", "videos", "tags", "comments", "messages", "threads", "tickets", "agents",
	"teams", "projects", "tasks", "labels", "metrics", "alerts", "dashboards", "queries",
	"datasets", "models", "pipelines", "deployments",
}

// actions end a route after a collection or an item; none is a resource.
var actions = []string{
	"search", "export", "count", "batch", "summary", "stats", "archive", "restore",
	"cancel", "approve", "refund", "publish", "preview", "history", "sync",
}

// fixed are top-level static routes every table starts with.
var fixed = []string{"/healthz", "/readyz", "/metrics", "/version"}

// Routes returns n unique routes (1 ≤ n ≤ MaxRoutes) of a seeded REST
// route table: the first n of the table of MaxRoutes routes generated from
// seed, so a smaller table is a prefix of the larger one.
//
// Every route is /api/<version>/<resource>[/{<resource>_id}/<resource>…]
// optionally ending in an action (search, export, …) after a collection or
// an item, or a static page /<area>/<word>[/<word>], besides four
// top-level static routes. Resources sit at even
// segment positions, ids at odd ones, and an action only ever ends a
// route, so no two routes are in conflict under ServeMux's rules (one of
// two overlapping patterns is always the more specific).
func Routes(n int, seed uint64) ([]Route, error) {
	if n < 1 || n > MaxRoutes {
		return nil, fmt.Errorf("route count %d out of range: pick 1 to %d", n, MaxRoutes)
	}
	all := generate(seed)
	return all[:n:n], nil
}

func generate(seed uint64) []Route {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	seen := map[string]bool{}
	out := make([]Route, 0, MaxRoutes)
	add := func(r Route) {
		if !seen[r.Pattern] && len(out) < MaxRoutes {
			seen[r.Pattern] = true
			out = append(out, r)
		}
	}
	for _, f := range fixed {
		add(Route{Pattern: f})
	}
	versions := []string{"v1", "v2", "v3"}
	areas := []string{"docs", "admin", "assets", "status", "console"}
	for len(out) < MaxRoutes {
		if rng.IntN(100) < 20 {
			// A static page: /<area>/<word>[/<word>].
			p := "/" + areas[rng.IntN(len(areas))] + "/" + resources[rng.IntN(len(resources))]
			if rng.IntN(2) == 0 {
				p += "/" + actions[rng.IntN(len(actions))]
			}
			add(Route{Pattern: p})
			continue
		}
		var b strings.Builder
		b.WriteString("/api/")
		b.WriteString(versions[rng.IntN(len(versions))])
		depth := 1
		switch x := rng.IntN(100); {
		case x >= 80:
			depth = 3
		case x >= 35:
			depth = 2
		}
		var params []string
		used := map[int]bool{}
		for d := 0; d < depth; d++ {
			ri := rng.IntN(len(resources))
			for used[ri] {
				ri = rng.IntN(len(resources))
			}
			used[ri] = true
			b.WriteString("/")
			b.WriteString(resources[ri])
			last := d == depth-1
			if !last {
				name := resources[ri] + "_id"
				params = append(params, name)
				b.WriteString("/{" + name + "}")
				continue
			}
			switch x := rng.IntN(100); {
			case x < 30: // the collection itself
			case x < 45: // an action on the collection
				b.WriteString("/" + actions[rng.IntN(len(actions))])
			case x < 85: // an item
				name := resources[ri] + "_id"
				params = append(params, name)
				b.WriteString("/{" + name + "}")
			default: // an action on an item
				name := resources[ri] + "_id"
				params = append(params, name)
				b.WriteString("/{" + name + "}/" + actions[rng.IntN(len(actions))])
			}
		}
		add(Route{Pattern: b.String(), Params: params})
	}
	// A seeded shuffle, so that any prefix is a realistic mix.
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// A Param is one path parameter: its name and the segment it matched.
type Param struct {
	Key, Value string
}

// A Lookup is one request of the lookup mix: its path, the index of the
// route it must reach (-1 for a miss, which must give 404) and the
// parameters that route must see.
type Lookup struct {
	Path   string
	Route  int
	Params []Param
}

// Instantiate fills a route's parameters with seeded values (numbers or
// short hex slugs, never an action or resource name) and returns the
// request path and the parameters.
func Instantiate(r Route, rng *rand.Rand) (string, []Param) {
	var ps []Param
	segs := strings.Split(r.Pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			v := strconv.Itoa(1 + rng.IntN(999_999))
			if rng.IntN(4) == 0 {
				v = "o" + strconv.FormatUint(rng.Uint64()>>24, 16)
			}
			segs[i] = v
			ps = append(ps, Param{Key: s[1 : len(s)-1], Value: v})
		}
	}
	return strings.Join(segs, "/"), ps
}

// Mix returns count seeded lookups against routes: a share hitPct (in
// percent) hits a route chosen uniformly, so static and parametrised
// routes come in the table's own proportion; the rest are misses: a hit's
// path with one resource segment (or the version) replaced by a word no
// route has at that position (the version, a resource or an action: a
// position no route holds a parameter at), so no route can match.
func Mix(routes []Route, count, hitPct int, seed uint64) []Lookup {
	all := make([]int, len(routes))
	for i := range all {
		all[i] = i
	}
	return mix(routes, all, count, hitPct, seed)
}

// StaticMix is Mix over the static routes alone: the requests an
// exact-path map can serve, its hits static paths and its misses made
// from them.
func StaticMix(routes []Route, count, hitPct int, seed uint64) []Lookup {
	var static []int
	for i, r := range routes {
		if r.Static() {
			static = append(static, i)
		}
	}
	return mix(routes, static, count, hitPct, seed)
}

// mix draws count lookups, hits and misses, from the routes of pick.
func mix(routes []Route, pick []int, count, hitPct int, seed uint64) []Lookup {
	rng := rand.New(rand.NewPCG(seed, 0x51ed2701))
	out := make([]Lookup, count)
	for i := range out {
		ri := pick[rng.IntN(len(pick))]
		path, ps := Instantiate(routes[ri], rng)
		if rng.IntN(100) < hitPct {
			out[i] = Lookup{Path: path, Route: ri, Params: ps}
			continue
		}
		segs := strings.Split(path, "/")
		switch {
		case len(segs) < 4: // a top-level route: an unknown top-level word
			segs[1] = "nosuch" + strconv.Itoa(rng.IntN(1000))
		default:
			// segs[0] is empty, segs[1] "api", segs[2] the version; odd
			// indexes from 3 on hold resources or a final action, never a
			// parameter. Replace the version or one of them.
			k := rng.IntN(1 + (len(segs)-2)/2)
			if k == 0 {
				segs[2] = "v9"
			} else {
				segs[1+2*k] = "nosuch" + strconv.Itoa(rng.IntN(1000))
			}
		}
		out[i] = Lookup{Path: strings.Join(segs, "/"), Route: -1}
	}
	return out
}
