package analysis

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layout corpus (analysis/testdata/layout, README there): A/A runs of
// real modules' benchmarks, both sides the same source, relinked with a
// fresh random layout for each side every per_layout rounds. Each
// benchmark gives per-round log-ratios new/old grouped by layout cluster.

// layoutCluster is the log-ratios of one cluster of rounds on one pair of
// layouts.
type layoutCluster []float64

// layoutCorpus is one recording: per benchmark, its clusters in order.
type layoutCorpus struct {
	name     string
	per      int
	clusters map[string][]layoutCluster
}

// loadLayoutCorpus reads a gzip-compressed layout corpus.
func loadLayoutCorpus(path string) (*layoutCorpus, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := &layoutCorpus{name: strings.TrimSuffix(filepath.Base(path), ".csv.gz"), clusters: map[string][]layoutCluster{}}
	sc := bufio.NewScanner(zr)
	byBench := map[string]map[int]layoutCluster{}
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, "#"):
			for _, f := range strings.Fields(text) {
				if v, ok := strings.CutPrefix(f, "per_layout="); ok {
					c.per, _ = strconv.Atoi(v)
				}
			}
			continue
		case text == "" || text == "cluster,round,bench,old,new":
			continue
		}
		fs := strings.Split(text, ",")
		if len(fs) != 5 {
			return nil, fmt.Errorf("%s:%d: %d fields, want cluster,round,bench,old,new", path, line, len(fs))
		}
		cl, err1 := strconv.Atoi(fs[0])
		old, err2 := strconv.ParseFloat(fs[3], 64)
		nw, err3 := strconv.ParseFloat(fs[4], 64)
		if err1 != nil || err2 != nil || err3 != nil || old <= 0 || nw <= 0 {
			return nil, fmt.Errorf("%s:%d: malformed line %q", path, line, text)
		}
		if byBench[fs[2]] == nil {
			byBench[fs[2]] = map[int]layoutCluster{}
		}
		byBench[fs[2]][cl] = append(byBench[fs[2]][cl], math.Log(nw)-math.Log(old))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.per < 2 {
		return nil, fmt.Errorf("%s: no per_layout ≥ 2 in its header", path)
	}
	for bench, m := range byBench {
		keys := make([]int, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			c.clusters[bench] = append(c.clusters[bench], m[k])
		}
	}
	return c, nil
}

func layoutCorpora(t testing.TB) []*layoutCorpus {
	paths, _ := filepath.Glob(filepath.Join("testdata", "layout", "*.csv.gz"))
	if len(paths) < 2 {
		t.Fatalf("want recordings of two real modules in testdata/layout, found %v", paths)
	}
	var out []*layoutCorpus
	for _, p := range paths {
		c, err := loadLayoutCorpus(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// layoutWorlds are calibration worlds from the layout corpus: one draw is
// one layout cluster's value (the median of its log-ratios, what
// Options.PerLayout makes of it), negated with probability ½ (both sides
// run the same source, so swapping them is an equally likely cluster and
// the world's median is exactly 0); the planted effect adds 2%.
func layoutWorlds(t testing.TB) []calWorld {
	var out []calWorld
	for _, c := range layoutCorpora(t) {
		benches := make([]string, 0, len(c.clusters))
		for b := range c.clusters {
			benches = append(benches, b)
		}
		slices.Sort(benches)
		for _, b := range benches {
			var vals []float64
			for _, cl := range c.clusters[b] {
				vals = append(vals, median(sortedFinite(cl)))
			}
			aa := func(rng *rand.Rand) float64 {
				d := vals[rng.IntN(len(vals))]
				if rng.IntN(2) == 0 {
					return -d
				}
				return d
			}
			out = append(out, calWorld{
				name:    fmt.Sprintf("layouts %s %s", c.name, b),
				aa:      aa,
				planted: func(rng *rand.Rand) float64 { return aa(rng) + math.Log(1.02) },
				truth:   math.Log(1.02),
				nominal: math.Log(1.02),
				assert:  true,
			})
		}
	}
	return out
}

// TestLayoutCorpusClusters resamples whole recorded clusters (each
// sign-flipped as a unit) into runs of 8 clusters and decides each A/A
// run twice: over clusters (PerLayout, perflab's rule) and as if its
// rounds were independent. On real layouts the first stays at α; the
// second is shown beside it.
func TestLayoutCorpusClusters(t *testing.T) {
	const runs, clusters = 2000, 8
	se := math.Sqrt(calAlpha * (1 - calAlpha) / runs)
	for _, c := range layoutCorpora(t) {
		for bench, cls := range c.clusters {
			rng := rand.New(rand.NewPCG(11, uint64(len(bench))))
			var clustered, naive int
			for range runs {
				num, den := map[int]float64{}, map[int]float64{}
				for k := range clusters {
					cl := cls[rng.IntN(len(cls))]
					sign := 1.0
					if rng.IntN(2) == 0 {
						sign = -1
					}
					for i, d := range cl {
						r := k*c.per + i + 1
						num[r], den[r] = math.Exp(sign*d), 1
					}
				}
				if (Options{Confidence: 1 - calAlpha, PerLayout: c.per}).Paired(num, den).Excludes(1) {
					clustered++
				}
				if (Options{Confidence: 1 - calAlpha}).Paired(num, den).Excludes(1) {
					naive++
				}
			}
			rc, rn := float64(clustered)/runs, float64(naive)/runs
			t.Logf("%s %s (%d clusters of %d rounds): A/A false decisions over clusters %.1f%%, rounds as if independent %.1f%%", c.name, bench, len(cls), c.per, 100*rc, 100*rn)
			if rc > calAlpha+3*se {
				t.Errorf("%s %s: A/A over layout clusters decided %.1f%% of runs, more than α = %.0f%%", c.name, bench, 100*rc, 100*calAlpha)
			}
		}
	}
}
