package gateway

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

// Ctx is the per-request context object of the gateway's handler chain,
// as frameworks such as gin pass one to every middleware: the request and
// response, the route's parameters, a key/value store the middlewares
// share, and a scratch buffer for the request ID and the response body.
type Ctx struct {
	W      http.ResponseWriter
	R      *http.Request
	Params []Param
	Keys   map[string]any
	Buf    []byte
}

// Set stores a value for the middlewares after this one.
func (c *Ctx) Set(k string, v any) { c.Keys[k] = v }

// A Middleware is one step of the chain; it returns false to stop it.
type Middleware func(*Ctx) bool

// Chain runs middlewares and a final handler for each request, on a Ctx
// either allocated per request (Pooled false: the Ctx, its map, its
// parameter slice and its buffer are new every time) or taken from a
// sync.Pool and reset (Pooled true).
type Chain struct {
	Pooled bool
	Steps  []Middleware
	pool   sync.Pool
}

// ServeHTTP runs the chain for one request.
func (ch *Chain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var c *Ctx
	if ch.Pooled {
		if v := ch.pool.Get(); v != nil {
			c = v.(*Ctx)
		} else {
			c = newCtx()
		}
	} else {
		c = newCtx()
	}
	c.W, c.R = w, r
	for _, step := range ch.Steps {
		if !step(c) {
			break
		}
	}
	if ch.Pooled {
		c.reset()
		ch.pool.Put(c)
	}
}

func newCtx() *Ctx {
	return &Ctx{Params: make([]Param, 0, 4), Keys: make(map[string]any, 4), Buf: make([]byte, 0, 256)}
}

// reset empties c for its next request, keeping its storage.
func (c *Ctx) reset() {
	c.W, c.R = nil, nil
	c.Params = c.Params[:0]
	clear(c.Keys)
	c.Buf = c.Buf[:0]
}

// Principal is an authenticated caller.
type Principal struct {
	Name   string
	Tenant int
}

var (
	contentJSON = []string{"application/json"}
	nosniff     = []string{"nosniff"}
)

// GatewayChain returns the gateway's handler chain: request ID,
// API-key authentication, route parameters (a fixed route, as the router
// would give them), rate-limit bookkeeping, and a handler that writes a
// small JSON answer built from what the middlewares left in the context.
func GatewayChain(pooled bool) *Chain {
	keys := map[string]*Principal{"k-9f2c": {Name: "shop-frontend", Tenant: 42}}
	var seq atomic.Uint64
	var hits [64]atomic.Int64
	return &Chain{Pooled: pooled, Steps: []Middleware{
		func(c *Ctx) bool { // request ID, kept in the scratch buffer
			c.Buf = append(c.Buf, "rid-"...)
			c.Buf = strconv.AppendUint(c.Buf, seq.Add(1), 36)
			return true
		},
		func(c *Ctx) bool { // authentication
			p := keys[c.R.Header.Get("X-Api-Key")]
			if p == nil {
				c.W.WriteHeader(http.StatusUnauthorized)
				return false
			}
			c.Set("principal", p)
			return true
		},
		func(c *Ctx) bool { // route parameters
			c.Params = append(c.Params, Param{"shops_id", "1042"}, Param{"orders_id", "77"})
			return true
		},
		func(c *Ctx) bool { // per-tenant counters
			p := c.Keys["principal"].(*Principal)
			hits[p.Tenant%len(hits)].Add(1)
			return true
		},
		func(c *Ctx) bool { // the handler
			p := c.Keys["principal"].(*Principal)
			h := c.W.Header()
			h["Content-Type"] = contentJSON
			h["X-Content-Type-Options"] = nosniff
			rid := len(c.Buf)
			b := append(c.Buf, `{"shop":"`...)
			b = append(b, c.Params[0].Value...)
			b = append(b, `","order":"`...)
			b = append(b, c.Params[1].Value...)
			b = append(b, `","caller":"`...)
			b = append(b, p.Name...)
			b = append(b, `","request_id":"`...)
			b = append(b, b[:rid]...)
			b = append(b, `"}`...)
			c.Buf = b
			c.W.WriteHeader(http.StatusOK)
			c.W.Write(b[rid:])
			return true
		},
	}}
}
