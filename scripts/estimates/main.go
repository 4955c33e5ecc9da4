// Command estimates checks how well the further rounds a compared ratio
// was forecast to need matched the rounds it took. At the first
// observation with an interval it takes the forecast the judge would
// have printed (analysis.ForecastDecision: the median and 80% range of
// simulated paths of the rule, at the row's level 1 − α/m, horizon 40×
// the observations) and, beside it, the half-width extrapolation perflab
// printed before (analysis.RoundsToHalfWidth), and compares both with the
// observation at which the row was in fact decided (its interval
// excluding 1, or lying within ±1%). It is a measurement script, not part
// of perflab.
//
// On a stored sequential ab run (old/new, one unit):
//
//	go run ./scripts/estimates -db ~/.local/share/perflab/perflab.db -run 7
//
// On simulated runs, rounds resampled from the recorded noise of
// analysis/testdata/noise with a planted effect (-simulate):
//
//	go run ./scripts/estimates -simulate
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"path/filepath"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/internal/noisetest"
	"github.com/perflab/perflab/store"
)

func main() {
	dbPath := flag.String("db", "", "perflab's database")
	runID := flag.Int64("run", 0, "the run")
	unit := flag.String("unit", "sec/op", "the unit compared")
	simulate := flag.Bool("simulate", false, "simulate runs on the recorded noise instead of reading a stored run")
	flag.Parse()
	if *simulate {
		simulated()
		return
	}
	stored(*dbPath, *runID, *unit)
}

// decided is the rule of a sequential run without a gate or a precision.
func decided(lo, hi float64) bool {
	band := math.Log1p(findings.EquivalenceBand)
	return lo > 0 || hi < 0 || lo >= -band && hi <= band
}

// tally counts, over the rows forecast, how the forecasts fared.
type tally struct {
	rows, atFirst, never       int
	inRange, within2, within2o int
	censored, missedCensored   int // never decided, with rounds after the forecast
}

// add scores one row: first is the observation with the first interval,
// took the one it was decided at (-1 never), lr[:first] what was known.
func (t *tally) add(lr []float64, first, took int, confidence float64, name string) {
	switch {
	case took < 0:
		t.never++
		if first < len(lr) {
			// Undecided after all its rounds: the forecast missed when
			// its whole range lay below them.
			f := analysis.ForecastDecision(lr[:first], confidence, 0, 40*first, decided)
			t.censored++
			if !f.Open && f.Hi < len(lr) {
				t.missedCensored++
			}
		}
		return
	case took == first:
		t.atFirst++
		return
	}
	d := lr[:first]
	f := analysis.ForecastDecision(d, confidence, 0, 40*first, decided)
	r := analysis.AnytimeLogs(d, confidence, 0)
	target := math.Max(findings.DecidePrecision, math.Abs(math.Log(r.Ratio)))
	old := analysis.RoundsToHalfWidth(d, target, confidence, 0, 100000)
	t.rows++
	q := float64(took-first) / float64(max(1, f.Median-first))
	qo := float64(took-first) / float64(max(1, old-first))
	in := f.Lo <= took && (f.Open || took <= f.Hi) && !f.Beyond
	if in {
		t.inRange++
	}
	if q >= 0.5 && q <= 2 {
		t.within2++
	}
	if qo >= 0.5 && qo <= 2 {
		t.within2o++
	}
	if name != "" {
		fmt.Printf("%-60s first interval at %3d; decided at %3d; forecast %d (80%%: %d–%d, held: %v), took/forecast more %.2f; extrapolated %d, took/extrapolated more %.2f\n",
			name, first, took, f.Median, f.Lo, f.Hi, in, q, old, qo)
	}
}

func (t tally) String() string {
	return fmt.Sprintf("%d rows forecast: 80%% range held the decision in %d, median forecast within 2× in %d (the half-width extrapolation: %d); %d decided at their first interval, %d never decided (of those with rounds after the forecast, %d of %d had run past the whole range)",
		t.rows, t.inRange, t.within2, t.within2o, t.atFirst, t.never, t.missedCensored, t.censored)
}

// firstAndTook are the observations with the first interval and with the
// decision (-1 when none).
func firstAndTook(lr []float64, confidence float64) (first, took int) {
	first, took = -1, -1
	for n := 2; n <= len(lr); n++ {
		r := analysis.AnytimeLogs(lr[:n], confidence, 0)
		if !r.HasInterval() {
			continue
		}
		if first < 0 {
			first = n
		}
		if decided(math.Log(r.Lo), math.Log(r.Hi)) {
			return first, n
		}
	}
	return first, -1
}

func stored(dbPath string, runID int64, unit string) {
	db, err := store.Open(dbPath)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	in, err := findings.Read(context.Background(), db, runID, analysis.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	opt := in.Opt
	type pair struct{ num, den *analysis.Sample }
	byName := map[string]*pair{}
	for _, s := range analysis.Collect(in.Results) {
		if s.Unit != unit {
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
	confidence := 1 - opt.Alpha/float64(len(byName))
	var t tally
	noInterval := 0
	for name, p := range byName {
		if p.num == nil || p.den == nil {
			continue
		}
		lr := opt.LogRatios(p.num.ByRound(), p.den.ByRound())
		first, took := firstAndTook(lr, confidence)
		if first < 0 {
			noInterval++
			continue
		}
		t.add(lr, first, took, confidence, name)
	}
	fmt.Printf("%v; %d never had an interval\n", t, noInterval)
}

func simulated() {
	value := func(p noisetest.Process) float64 { return analysis.RepeatEstimate(p.Reps) }
	for _, cond := range []string{"quiet", "noisy", "bursts"} {
		c, err := noisetest.LoadCorpus(filepath.Join("analysis", "testdata", "noise", cond+".csv.gz"))
		if err != nil {
			log.Fatal(err)
		}
		base := c.LogRatios("c", "a", value)
		for _, m := range []int{1, 100} {
			for _, delta := range []float64{0.003, 0.01, 0.02, 0.05, 0.1, 0.3} {
				rng := rand.New(rand.NewPCG(1, uint64(m)))
				confidence := 1 - 0.05/float64(m)
				var t tally
				for range 100 {
					lr := make([]float64, 2000)
					for i := range lr {
						lr[i] = base[rng.IntN(len(base))] + delta
					}
					first, took := firstAndTook(lr, confidence)
					t.add(lr, first, took, confidence, "")
				}
				fmt.Printf("%-6s m=%3d δ=%5.1f%%: %v\n", cond, m, delta*100, t)
			}
		}
	}
}
