package claim

import "github.com/perflab/perflab/spec"

// MarkNotBuilt gives the checks that measured nothing because they read a
// config that did not build in this run (a toolchain that could not be
// downloaded, an unknown GOEXPERIMENT) that reason: the config and the
// go command's complaint, in place of "no cell matches". notBuilt maps
// each such config to its build error. Verdicts do not change: such a
// check is not testable either way, and a precondition that reads it
// leaves its claim not testable, now with this reason.
func MarkNotBuilt(results []Result, notBuilt map[string]string) {
	if len(notBuilt) == 0 {
		return
	}
	for i := range results {
		for j := range results[i].Checks {
			c := &results[i].Checks[j]
			if c.Verdict != NotTestable || c.Why.Why != Failed {
				continue
			}
			if cfg, ok := ReadsConfig(c.Subject, notBuilt); ok {
				c.Why = Reason{Why: NotBuilt, Cell: cfg, Err: notBuilt[cfg]}
			}
		}
	}
}

// ReadsConfig returns the config among configs (keyed by name) that one of
// the subject's selectors names.
func ReadsConfig[V any](s Subject, configs map[string]V) (string, bool) {
	for _, sel := range []string{s.Where, s.Num, s.Den, s.A, s.B} {
		kv, err := spec.ParseSelector(sel)
		if err != nil {
			continue
		}
		for _, p := range kv {
			if _, ok := configs[p[1]]; ok && p[0] == "config" {
				return p[1], true
			}
		}
	}
	return "", false
}
