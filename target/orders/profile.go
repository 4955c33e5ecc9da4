package orders

import (
	"fmt"
	"strings"
)

// Profile is a configuration of the service: the baseline a first version
// typically is, the article's four changes alone or together, and a
// ceiling that does no work per request.
type Profile struct {
	Name        string
	Codec       string // JSON codec of /order responses (see Codecs)
	SizedPool   bool   // DB pool sized for the load instead of database/sql's defaults
	CachedClock bool   // timestamps from a clock refreshed every millisecond instead of time.Now
	LeanChain   bool   // 2 middlewares (request id, auth) instead of 7
	Constant    bool   // the handler writes a constant body: no DB, no encoding
	Text        string // one line for help output
}

// Profiles lists the named profiles.
var Profiles = []Profile{
	{Name: "baseline", Codec: "std", Text: "encoding/json, default DB pool, time.Now per log line, 7 middlewares with a synchronous access log"},
	{Name: "json", Codec: "easyjson", Text: "baseline + code-generated JSON (easyjson)"},
	{Name: "pool", Codec: "std", SizedPool: true, Text: "baseline + a DB pool sized for the load"},
	{Name: "clock", Codec: "std", CachedClock: true, Text: "baseline + a cached millisecond clock for timestamps"},
	{Name: "chain", Codec: "std", LeanChain: true, Text: "baseline + a 2-middleware chain (request id, auth)"},
	{Name: "optimized", Codec: "easyjson", SizedPool: true, CachedClock: true, LeanChain: true, Text: "all four changes"},
	{Name: "ceiling", Codec: "easyjson", SizedPool: true, CachedClock: true, LeanChain: true, Constant: true, Text: "the optimized stack with a handler that writes a constant body"},
}

// ProfileNames returns the names of Profiles in order.
func ProfileNames() []string {
	var names []string
	for _, p := range Profiles {
		names = append(names, p.Name)
	}
	return names
}

// ProfileByName returns the profile called name.
func ProfileByName(name string) (Profile, error) {
	for _, p := range Profiles {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("no profile %q; choose one of %s", name, strings.Join(ProfileNames(), ", "))
}
