package claim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/profshare"
	"github.com/perflab/perflab/spec"

	. "github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/report"
)

func cellProfile(config, name string, procs int, c profshare.Counts) CellProfile {
	n := benchname.Parse(name)
	n.Procs = procs
	return CellProfile{Config: config, Name: n, Counts: c}
}

func TestProfileCheck(t *testing.T) {
	profiles := []CellProfile{
		// 600 of 1000 samples under heap-allocator locks: 90% Wilson interval [0.574, 0.625] (a one-sided test at 5%).
		cellProfile("default", "BenchmarkAlloc/variant=plain/gomaxprocs=2", 1, profshare.Counts{Total: 1000, Lock: 650, HeapLock: 600}),
		// 10 of 1000: [0.0054, 0.0183].
		cellProfile("default", "BenchmarkAlloc/variant=pooled/gomaxprocs=2", 1, profshare.Counts{Total: 1000, Lock: 30, HeapLock: 10}),
		cellProfile("default", "BenchmarkAlloc/variant=few/gomaxprocs=2", 1, profshare.Counts{Total: 10, Lock: 5, HeapLock: 5}),
		cellProfile("default", "BenchmarkAlloc/variant=empty/gomaxprocs=2", 1, profshare.Counts{}),
		{Config: "default", Name: benchname.Parse("BenchmarkAlloc/variant=lost/gomaxprocs=2"), Err: errors.New("file not found")},
		cellProfile("go1.22", "BenchmarkAlloc/variant=plain/gomaxprocs=2", 0, profshare.Counts{Total: 1000, Lock: 500, HeapLock: 450}),
	}
	check := func(num, den, op string, value float64) spec.Check {
		return spec.Check{Kind: "profile", Unit: profshare.HeapLockShare, Where: "config=default,gomaxprocs=2", Num: num, Den: den, Op: op, Value: value}
	}
	lockShare := check("variant=plain", "", ">", 0.6)
	lockShare.Unit = profshare.LockShare
	procs := check("variant=plain", "", ">", 0.5)
	procs.Where = "config=go1.22,procs=2"
	other := check("variant=plain", "", "<", 0.5)
	other.Where = "config=go1.22"
	tests := []struct {
		name    string
		check   spec.Check
		want    Verdict
		measure string // fragment of Measured
		reason  string // fragment of Reason
	}{
		{"share above", check("variant=plain", "", ">", 0.5), Reproduced, "heap-lock-share plain [config=default,gomaxprocs=2] = 0.6 [0.574, 0.625] (600/1000 samples)", ""},
		{"share below", check("variant=plain", "", "<", 0.5), Contradicted, "0.6", "expected heap-lock-share plain"},
		{"straddles", check("variant=plain", "", ">", 0.6), Inconclusive, "0.6", "straddles 0.6"},
		{"small share", check("variant=pooled", "", "<", 0.02), Reproduced, "10/1000", ""},
		{"lock share", lockShare, Reproduced, "lock-share plain", ""},
		{"few samples: wide interval", check("variant=few", "", ">", 0.3), Inconclusive, "5/10", "straddles"},
		{"difference below zero", check("variant=pooled", "variant=plain", "<", 0), Reproduced, "pooled − plain", ""},
		{"difference the other way", check("variant=pooled", "variant=plain", ">", 0), Contradicted, "(10/1000 vs 600/1000 samples)", ""},
		{"no samples", check("variant=empty", "", ">", 0.1), NotTestable, "", "holds no samples; raise the mode's profile_benchtime"},
		{"unreadable", check("variant=lost", "", ">", 0.1), NotTestable, "", "could not be read: file not found"},
		{"no such cell", check("variant=arena", "", ">", 0.1), NotTestable, "", "no profiled cell matches config=default,gomaxprocs=2,variant=arena"},
		{"ambiguous", spec.Check{Kind: "profile", Num: "variant=plain", Op: ">", Value: 0.1}, NotTestable, "", "2 profiled cells match"},
		{"procs unknown for a pass over several", procs, NotTestable, "", "no profiled cell matches"},
		{"default unit", func() spec.Check { c := check("variant=plain", "", ">", 0.5); c.Unit = ""; return c }(), Reproduced, "heap-lock-share", ""},
		{"another config", other, Reproduced, "450/1000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := spec.Claim{ID: "E1", Text: "t", Checks: []spec.Check{tt.check}}
			r := Evaluate([]spec.Claim{c}, nil, analysis.DefaultOptions(), profiles...)[0]
			if len(r.Checks) != 1 {
				t.Fatalf("%d check results, want 1", len(r.Checks))
			}
			cr := r.Checks[0]
			if cr.Verdict != tt.want {
				t.Errorf("check verdict %s, want %s (measured %q, reason %q)", cr.Verdict, tt.want, report.ClaimMeasured(r), report.ClaimReason(r))
			}
			// One profiling pass gives no run-to-run interval: a profile
			// check is shown, never counted.
			if !cr.Context || r.Verdict != NotTestable || !strings.Contains(report.ClaimReason(r), "one profiling pass") {
				t.Errorf("claim verdict %s (reason %q), check context %v; want a profile check shown as context, the claim not testable with the reason", r.Verdict, report.ClaimReason(r), cr.Context)
			}
			if !strings.Contains(report.ClaimMeasured(r), tt.measure) {
				t.Errorf("measured %q, want it to contain %q", report.ClaimMeasured(r), tt.measure)
			}
			if !strings.Contains(report.ClaimReason(r), tt.reason) {
				t.Errorf("reason %q, want it to contain %q", report.ClaimReason(r), tt.reason)
			}
		})
	}
}

func TestProfileCheckWithoutProfiles(t *testing.T) {
	c := spec.Claim{ID: "E1", Text: "t", Checks: []spec.Check{{Kind: "profile", Num: "variant=plain", Op: ">", Value: 0.5}}}
	r := Evaluate([]spec.Claim{c}, nil, analysis.DefaultOptions())[0]
	if r.Verdict != NotTestable || !strings.Contains(report.ClaimReason(r), `profile = "cell"`) {
		t.Errorf("verdict %s (%s), want not testable naming profile = \"cell\"", r.Verdict, report.ClaimReason(r))
	}
}
