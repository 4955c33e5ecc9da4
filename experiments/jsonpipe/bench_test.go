package jsonpipe

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perflab/perflab/benchmetrics"
)

// Sizes are the document sizes the benchmark sweeps, in KiB.
var Sizes = []int{1, 10, 64, 1024, 5120}

// Seed is the generator seed every cell uses, so every variant sees the
// same document of a size.
const Seed = 1

// docs caches one generated document per size within a test process.
var docs sync.Map // size in bytes → func() (*Doc, error)

func docFor(size int) (*Doc, error) {
	f, _ := docs.LoadOrStore(size, sync.OnceValues(func() (*Doc, error) { return Generate(Seed, size) }))
	return f.(func() (*Doc, error))()
}

// plantEnv, when set, adds a variant whose output is deliberately wrong,
// so a test can watch the correctness gate fail the benchmark.
const plantEnv = "JSONPIPE_PLANT_WRONG_VARIANT"

func benchVariants() []Variant {
	vs := Variants()
	if os.Getenv(plantEnv) != "" {
		vs = append(vs, plantedVariant())
	}
	return vs
}

// BenchmarkPipeline runs one pipeline per iteration on a generated
// document: BenchmarkPipeline/kib=<size>/variant=<variant>.
func BenchmarkPipeline(b *testing.B) {
	for _, kib := range Sizes {
		b.Run(fmt.Sprintf("kib=%d", kib), func(b *testing.B) {
			for _, v := range benchVariants() {
				b.Run("variant="+v.Name, func(b *testing.B) { benchVariant(b, v, kib<<10) })
			}
		})
	}
}

func benchVariant(b *testing.B, v Variant, size int) {
	if v.NotApplicable != "" {
		b.Skip(v.NotApplicable)
	}
	doc, err := docFor(size)
	if err != nil {
		b.Fatal(err)
	}
	p := v.New()
	// Correctness before speed: a variant whose output is not the input
	// value fails the cell with the first difference and is never timed.
	if err := Verify(p, doc.JSON, doc.Value); err != nil {
		b.Fatalf("perflab: incorrect: %s", err)
	}
	var probes []Metric // reported after the loop: resetting the timer drops metrics
	if pr, ok := p.(Prober); ok {
		if probes, err = pr.ProbeRun(doc.JSON); err != nil {
			b.Log(err)
		}
	}
	// Heap allocations per stage, from untimed runs.
	allocs := stageAllocs(b, p, doc.JSON, v.Stages)

	hist := hdrhistogram.New(1, int64(time.Minute), 3)
	var sum [NumStages]time.Duration
	var gcs [NumStages]uint64
	m := Meter{CountGC: true}
	stop := benchmetrics.Measure(b)
	n := 0
	for b.Loop() {
		if err := p.Run(doc.JSON, &m, nil); err != nil {
			b.Fatal(err)
		}
		for s, d := range m.Time {
			sum[s] += d
			gcs[s] += m.GCs[s]
		}
		hist.RecordValue(int64(m.Total()))
		n++
	}
	stop()
	if n == 0 {
		return
	}
	var total time.Duration
	for _, s := range v.Stages {
		b.ReportMetric(sum[s].Seconds()/float64(n), s.String()+"-sec/op")
		b.ReportMetric(float64(gcs[s])/float64(n), s.String()+"-gc-cycles/op")
		total += sum[s]
	}
	b.ReportMetric(total.Seconds()/float64(n), "e2e-sec/op")
	b.ReportMetric(time.Duration(hist.ValueAtQuantile(50)).Seconds(), "p50-sec")
	b.ReportMetric(time.Duration(hist.ValueAtQuantile(99)).Seconds(), "p99-sec")
	b.ReportMetric(1, "correct") // the output passed Verify; the report counts these
	for _, m := range probes {
		b.ReportMetric(m.Value, m.Unit)
	}
	for _, s := range v.Stages {
		if s != Release {
			b.ReportMetric(allocs[s], s.String()+"-allocs/op")
		}
	}
}

// stageAllocs runs p a few times outside the timed loop, counting heap
// allocations per stage, and returns the mean per run. The correctness
// check has already run p once, so pools and caches are warm.
func stageAllocs(b *testing.B, p Pipeline, doc []byte, stages []Stage) [NumStages]float64 {
	runs := max(1, min(20, (256<<10)/len(doc)))
	m := Meter{CountAllocs: true}
	var out [NumStages]float64
	for range runs {
		if err := p.Run(doc, &m, nil); err != nil {
			b.Fatal(err)
		}
		for _, s := range stages {
			out[s] += float64(m.Allocs[s]) / float64(runs)
		}
	}
	return out
}
