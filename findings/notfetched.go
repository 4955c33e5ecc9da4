package findings

import (
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// markNotFetched gives each check that could not be measured because it
// reads a config whose toolchain or modules could not be downloaded
// (store.Config.NotFetched) that reason, in place of the cells it did not
// find. The verdicts stay as claim gave them: a check without samples is
// not testable either way.
func markNotFetched(results []claim.Result, configs []store.Config) {
	missing := map[string]store.NotFetched{}
	for _, c := range configs {
		if c.NotFetched.What != "" {
			missing[c.Name] = c.NotFetched
		}
	}
	if len(missing) == 0 {
		return
	}
	for i := range results {
		for j := range results[i].Checks {
			c := &results[i].Checks[j]
			if c.Verdict != claim.NotTestable {
				continue
			}
			if name, ok := readsConfig(c.Subject, missing); ok {
				nf := missing[name]
				c.Why = claim.Reason{Why: claim.NotFetched, Config: name, Fetch: nf.What, Err: nf.Why}
			}
		}
	}
}

// readsConfig returns the first config of missing that a selector of the
// check names.
func readsConfig(s claim.Subject, missing map[string]store.NotFetched) (string, bool) {
	for _, sel := range []string{s.Where, s.Num, s.Den, s.A, s.B} {
		pairs, err := spec.ParseSelector(sel)
		if err != nil {
			continue
		}
		for _, kv := range pairs {
			if _, ok := missing[kv[1]]; ok && kv[0] == "config" {
				return kv[1], true
			}
		}
	}
	return "", false
}
