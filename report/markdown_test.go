package report

import (
	"slices"
	"testing"
)

func TestNaturalCompare(t *testing.T) {
	names := []string{
		"BenchmarkPool/size=8192/variant=plain",
		"BenchmarkPool/size=64/variant=plain-2",
		"BenchmarkPool/size=1024/variant=plain",
		"BenchmarkPool/size=64/variant=plain",
		"BenchmarkPool/size=64/variant=freelist",
	}
	want := []string{
		"BenchmarkPool/size=64/variant=freelist",
		"BenchmarkPool/size=64/variant=plain",
		"BenchmarkPool/size=64/variant=plain-2",
		"BenchmarkPool/size=1024/variant=plain",
		"BenchmarkPool/size=8192/variant=plain",
	}
	slices.SortFunc(names, naturalCompare)
	if !slices.Equal(names, want) {
		t.Errorf("sorted:\n%q\nwant\n%q", names, want)
	}
}
