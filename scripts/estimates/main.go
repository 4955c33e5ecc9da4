// Command estimates checks, on a stored sequential ab run, how well the
// rounds a row was estimated to need matched the rounds it took. For
// every compared ratio (old/new, one unit) that was decided, it takes the
// estimate the judge would have printed at the first observation with an
// interval (analysis.RoundsToHalfWidth on the observations so far, at the
// row's level 1 − α/m) and the observation at which the row was in fact
// decided (its interval excluding 1, or lying within ±1%), and prints
// their ratio. It is a measurement script, not part of perflab.
//
//	go run ./scripts/estimates -db ~/.local/share/perflab/perflab.db -run 7
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"sort"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
)

func main() {
	dbPath := flag.String("db", "", "perflab's database")
	runID := flag.Int64("run", 0, "the run")
	unit := flag.String("unit", "sec/op", "the unit compared")
	flag.Parse()
	db, err := store.Open(*dbPath)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	in, err := findings.Read(context.Background(), db, *runID, analysis.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	opt := in.Opt
	type pair struct{ num, den *analysis.Sample }
	byName := map[string]*pair{}
	for _, s := range analysis.Collect(in.Results) {
		if s.Unit != *unit {
			continue
		}
		k := s.Package + " " + s.Name.Full
		if byName[k] == nil {
			byName[k] = &pair{}
		}
		switch s.Config {
		case "new":
			byName[k].num = s
		case "old":
			byName[k].den = s
		}
	}
	m := len(byName)
	opt.Confidence = 1 - opt.Alpha/float64(m)
	band := findings.EquivalenceBand
	var ratios []float64
	undecided, noEstimate := 0, 0
	for name, p := range byName {
		if p.num == nil || p.den == nil {
			continue
		}
		lr := opt.LogRatios(p.num.ByRound(), p.den.ByRound())
		decided := func(n int) bool {
			r := opt.PairedLogs(lr[:n])
			return r.HasInterval() && (r.Excludes(1) || r.Lo >= 1/(1+band) && r.Hi <= 1+band)
		}
		first := -1
		for n := 2; n <= len(lr); n++ {
			if opt.PairedLogs(lr[:n]).HasInterval() {
				first = n
				break
			}
		}
		if first < 0 {
			noEstimate++
			continue
		}
		took := -1
		for n := first; n <= len(lr); n++ {
			if decided(n) {
				took = n
				break
			}
		}
		if took < 0 {
			undecided++
			continue
		}
		if took == first {
			continue // decided at its first interval: nothing was estimated
		}
		r := opt.PairedLogs(lr[:first])
		target := math.Max(findings.DecidePrecision, math.Abs(math.Log(r.Ratio)))
		est := analysis.RoundsToHalfWidth(lr[:first], target, opt.Confidence, opt.AnytimeTarget, 100000)
		q := float64(took-first) / float64(max(1, est-first))
		ratios = append(ratios, q)
		fmt.Printf("%-60s first interval at %3d, estimated decided at %6d, decided at %3d: took/estimated more %.2f\n", name, first, est, took, q)
	}
	sort.Float64s(ratios)
	within := 0
	for _, q := range ratios {
		if q >= 0.5 && q <= 2 {
			within++
		}
	}
	fmt.Printf("%d rows decided after their first interval: %d within a factor of 2 of the estimate (median took/estimated %.2f); %d decided at their first interval; %d never decided; %d never had an interval\n",
		len(ratios), within, median(ratios), countAt(byName)-len(ratios)-undecided-noEstimate, undecided, noEstimate)
}

func countAt[K comparable, V any](m map[K]V) int { return len(m) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return xs[len(xs)/2]
}
