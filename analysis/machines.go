package analysis

import (
	"math"
	"sort"
)

// MachineRatio is the paired ratio of two cells over one machine's rounds.
type MachineRatio struct {
	Machine string
	Ratio
}

// MachinesRatio compares two cells whose rounds ran on several machines
// (shards of one run). Every round is paired within one machine, so its
// log-ratio is free of that machine's absolute speed: the machine is a
// block. The observations are the clusters of rounds within each machine
// ([Options.Clusters]: the rounds that shared a link layout on that
// machine; each round its own without clustering), each summarised by the
// median of its log-ratios. Pooled summarises every machine's clusters;
// PerMachine does so for each machine's; H and HeteroP say whether the
// effect differs by machine.
type MachinesRatio struct {
	Pooled     Ratio
	PerMachine []MachineRatio // by machine name
	// H is the Kruskal–Wallis statistic of the clusters' log-ratios
	// grouped by machine (ties corrected), HeteroP its p-value from the
	// χ² law with machines−1 degrees of freedom: small means the ratio
	// depends on the machine. NaN with fewer than two machines or no
	// spread.
	H, HeteroP float64
	// Spread is the largest per-machine ratio over the smallest (1 when
	// they agree); NaN with fewer than two machines.
	Spread float64
}

// Heterogeneous reports whether the per-machine ratios differ at level alpha.
func (m MachinesRatio) Heterogeneous(alpha float64) bool {
	return !math.IsNaN(m.HeteroP) && m.HeteroP < alpha
}

// AcrossMachines compares num with den round by round, where machine[r] is
// the machine round r ran on (rounds without one count as machine ""). A
// cluster whose rounds ran on several machines counts once on each.
func (o Options) AcrossMachines(num, den map[int]float64, machine map[int]string) MachinesRatio {
	rounds, d := roundLogRatios(num, den)
	byMachine := map[string][]float64{}
	var all []float64
	for _, g := range o.Clusters(rounds) {
		// The cluster's rounds on each machine, machines in the order
		// of their first round in the cluster.
		var names []string
		part := map[string][]float64{}
		for _, i := range g {
			m := machine[rounds[i]]
			if _, ok := part[m]; !ok {
				names = append(names, m)
			}
			part[m] = append(part[m], d[i])
		}
		for _, m := range names {
			v := median(sortedFinite(part[m]))
			all = append(all, v)
			byMachine[m] = append(byMachine[m], v)
		}
	}
	out := MachinesRatio{Pooled: o.PairedLogs(all), H: math.NaN(), HeteroP: math.NaN(), Spread: math.NaN()}
	names := make([]string, 0, len(byMachine))
	for m := range byMachine {
		names = append(names, m)
	}
	sort.Strings(names)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range names {
		r := o.PairedLogs(byMachine[m])
		out.PerMachine = append(out.PerMachine, MachineRatio{Machine: m, Ratio: r})
		lo, hi = math.Min(lo, r.Ratio), math.Max(hi, r.Ratio)
	}
	if len(names) >= 2 {
		out.Spread = hi / lo
		groups := make([][]float64, len(names))
		for i, m := range names {
			groups[i] = byMachine[m]
		}
		out.H, out.HeteroP = kruskalWallis(groups)
	}
	return out
}

// kruskalWallis returns the tie-corrected H statistic of groups and its
// χ² (k−1 df) p-value; NaN for both when all values are tied.
func kruskalWallis(groups [][]float64) (h, p float64) {
	type obs struct {
		v float64
		g int
	}
	var all []obs
	for g, xs := range groups {
		for _, x := range xs {
			all = append(all, obs{x, g})
		}
	}
	n := float64(len(all))
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	rankSum := make([]float64, len(groups))
	ties := 0.0
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			rankSum[all[k].g] += rank
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	corr := 1 - ties/(n*n*n-n)
	if n < 2 || corr <= 0 {
		return math.NaN(), math.NaN()
	}
	for g, xs := range groups {
		if len(xs) > 0 {
			h += rankSum[g] * rankSum[g] / float64(len(xs))
		}
	}
	h = (12/(n*(n+1))*h - 3*(n+1)) / corr
	df := 0
	for _, xs := range groups {
		if len(xs) > 0 {
			df++
		}
	}
	df--
	if df < 1 {
		return math.NaN(), math.NaN()
	}
	return h, chiSquareSurvival(h, float64(df))
}

// chiSquareSurvival is P(X > x) for X ~ χ²(k): the regularised upper
// incomplete gamma function Q(k/2, x/2).
func chiSquareSurvival(x, k float64) float64 {
	if x <= 0 {
		return 1
	}
	a, z := k/2, x/2
	lg, _ := math.Lgamma(a)
	if z < a+1 {
		// Series for the lower function P.
		sum, term := 1/a, 1/a
		for n := 1; n < 1000; n++ {
			term *= z / (a + float64(n))
			sum += term
			if term < sum*1e-15 {
				break
			}
		}
		return 1 - sum*math.Exp(-z+a*math.Log(z)-lg)
	}
	// Continued fraction (Lentz) for Q.
	const tiny = 1e-300
	b := z + 1 - a
	c, d := 1/tiny, 1/b
	f := d
	for i := 1; i < 1000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		f *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return math.Exp(-z+a*math.Log(z)-lg) * f
}
