package gjson

// Benchmarks of Get for perflab bisect --with: they use only Get and
// Result.Int, which every gjson commit since 2016 has, so the file builds
// into any commit of the history.

import (
	"strconv"
	"strings"
	"testing"
)

// bisectDoc is a JSON document of n records with nested fields, then a
// "tail" object: a key near the end of a large document is where a
// parser's scanning speed shows most.
func bisectDoc(n int) string {
	var b strings.Builder
	b.WriteString(`{"records":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(i) + `,"name":"record ` + strconv.Itoa(i) + `","tags":["a","b","c"],`)
		b.WriteString(`"nested":{"depth":{"value":` + strconv.Itoa(i*7) + `,"text":"some \"escaped\" text \u00e9"}},"ok":true}`)
	}
	b.WriteString(`],"tail":{"deep":{"deeper":{"value":42}}}}`)
	return b.String()
}

var (
	bisectLarge = bisectDoc(2000) // about 240 KB
	bisectSmall = bisectDoc(3)
	bisectSink  int64
)

func BenchmarkBisectGetLargeTail(b *testing.B) {
	for i := 0; i < b.N; i++ {
		bisectSink += Get(bisectLarge, "tail.deep.deeper.value").Int()
	}
}

func BenchmarkBisectGetLargeIndex(b *testing.B) {
	for i := 0; i < b.N; i++ {
		bisectSink += Get(bisectLarge, "records.1500.nested.depth.value").Int()
	}
}

func BenchmarkBisectGetSmall(b *testing.B) {
	for i := 0; i < b.N; i++ {
		bisectSink += Get(bisectSmall, "records.2.nested.depth.value").Int()
	}
}
