package analysis

import (
	"math/rand/v2"
	"slices"
)

// The independent unit, applied.
//
// Every statistic that pairs or resamples rounds works on the clusters of
// [Options.Clusters] (a layout cluster; in a sharded run, a machine's
// cluster): it summarises each cluster by the median of its rounds first
// ([Options.ClusterMedians]), or resamples whole clusters
// ([drawClusters]). Without clustering each round is a cluster of its
// own, and every statistic is the per-round one.

// ClusterMedians returns one value per cluster of the rounds of byRound
// under o: the median of its rounds' values, clusters in the order of
// their first rounds. Without clustering it returns the values in round
// order. Non-finite values are left out.
func (o Options) ClusterMedians(byRound map[int]float64) []float64 {
	rounds := make([]int, 0, len(byRound))
	for r := range byRound {
		rounds = append(rounds, r)
	}
	slices.Sort(rounds)
	v := make([]float64, len(rounds))
	for i, r := range rounds {
		v[i] = byRound[r]
	}
	if !o.clustered() {
		return finiteValues(v)
	}
	return o.clusters(rounds, v)
}

// clusterGroups returns, for each cluster of rounds under o, its rounds
// (rather than their indexes, as [Options.Clusters] gives).
func (o Options) clusterGroups(rounds []int) [][]int {
	groups := o.Clusters(rounds)
	out := make([][]int, len(groups))
	for i, g := range groups {
		out[i] = make([]int, len(g))
		for j, k := range g {
			out[i][j] = rounds[k]
		}
	}
	return out
}

// drawClusters fills draw with the indexes of len(groups) clusters drawn
// with replacement: one cluster bootstrap resample (whole clusters, so
// what the rounds of a cluster share stays together and the resample
// varies as much as independent units do).
func drawClusters(rng *rand.Rand, groups int, draw []int) []int {
	draw = draw[:0]
	for range groups {
		draw = append(draw, rng.IntN(groups))
	}
	return draw
}

// roundsOfDraw appends to buf the rounds of the drawn clusters, each as
// often as its cluster was drawn.
func roundsOfDraw(groups [][]int, draw []int, buf []int) []int {
	for _, g := range draw {
		buf = append(buf, groups[g]...)
	}
	return buf
}
