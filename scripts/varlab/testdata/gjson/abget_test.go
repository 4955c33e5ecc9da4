package gjson

// BenchmarkABGet: Get on gjson's README example, on a document of about
// 9 KB (a key near its end) and on a small one. Copy this file into a
// copy of github.com/tidwall/gjson (any release since v1.6) to measure it
// with varlab (docs/varlab.md).

import (
	"strconv"
	"strings"
	"testing"
)

const abExample = `{
  "name": {"first": "Tom", "last": "Anderson"},
  "age":37,
  "children": ["Sara","Alex","Jack"],
  "fav.movie": "Deer Hunter",
  "friends": [
    {"first": "Dale", "last": "Murphy", "age": 44, "nets": ["ig", "fb", "tw"]},
    {"first": "Roger", "last": "Craig", "age": 68, "nets": ["fb", "tw"]},
    {"first": "Jane", "last": "Murphy", "age": 47, "nets": ["ig", "tw"]}
  ]
}`

// abDoc is a JSON document of n records, then a "tail" object.
func abDoc(n int) string {
	var b strings.Builder
	b.WriteString(`{"records":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(i) + `,"name":"record ` + strconv.Itoa(i) + `","tags":["a","b","c"],`)
		b.WriteString(`"nested":{"depth":{"value":` + strconv.Itoa(i*7) + `,"text":"some \"escaped\" text"}},"ok":true}`)
	}
	b.WriteString(`],"tail":{"deep":{"deeper":{"value":42}}}}`)
	return b.String()
}

var (
	abLarge = abDoc(75) // about 9 KB
	abSmall = abDoc(2)
	abSink  int
)

func BenchmarkABGet(b *testing.B) {
	b.Run("Example", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			abSink += len(Get(abExample, "friends.#(last==\"Murphy\")#.first").Raw)
		}
	})
	b.Run("LargeDoc", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			abSink += int(Get(abLarge, "tail.deep.deeper.value").Int())
		}
	})
	b.Run("SmallDoc", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			abSink += int(Get(abSmall, "records.1.nested.depth.value").Int())
		}
	})
}
