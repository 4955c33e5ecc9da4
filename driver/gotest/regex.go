package gotest

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// BenchRegex builds a -test.bench expression that selects exactly the
// benchmark named bench/levels[0]/levels[1]/... and none of its siblings:
//
//	BenchRegex("BenchmarkPool", []string{"mode=serial", "size=64"})
//	    == "^BenchmarkPool$/^mode=serial$/^size=64$"
//
// Each element is quoted with [regexp.QuoteMeta] and anchored, so "n=1" does
// not select "n=10". Level texts are sub-benchmark names as Go prints them
// (spaces already replaced by '_'; a space that remains matches '_', as in
// go test itself). Like go test, which splits both the pattern and the
// benchmark's full name on '/', BenchRegex treats a '/' inside bench or a
// level as a level separator: the level "path=a/b" becomes "^path=a$/^b$",
// which selects the sub-benchmark b.Run("path=a/b") created. An empty bench,
// an empty level, or a '/' at either end of one (any empty element) is an
// error, since go test never prints an empty name element.
func BenchRegex(bench string, levels []string) (string, error) {
	if bench == "" {
		return "", errors.New("gotest: BenchRegex: empty benchmark name; pass the top-level name, e.g. \"BenchmarkPool\"")
	}
	elems := strings.Split(bench, "/")
	for _, l := range levels {
		elems = append(elems, strings.Split(l, "/")...)
	}
	var b strings.Builder
	for i, e := range elems {
		if e == "" {
			return "", fmt.Errorf("gotest: BenchRegex(%q, %q): element %d of the name is empty; pass sub-benchmark names exactly as go test prints them", bench, levels, i)
		}
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteByte('^')
		b.WriteString(regexp.QuoteMeta(e))
		b.WriteByte('$')
	}
	return b.String(), nil
}
