package spec

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// posIndex maps key paths of a spec, such as "config[1].name",
// "axis[0].quick[2]" or "claim[2]", to the line where they are written,
// and records the TOML kind of every value. Path parts are lower-cased,
// matching the decoder's case-insensitive field matching.
type posIndex struct {
	lines   map[string]int
	kinds   map[string]unstable.Kind
	newline []int // offsets of '\n' in the source
}

// buildIndex indexes src. It never fails: on a syntax error it keeps what
// it has indexed so far (Parse reports syntax errors from the decoder).
func buildIndex(src []byte) (x *posIndex) {
	x = &posIndex{lines: map[string]int{}, kinds: map[string]unstable.Kind{}}
	for i, c := range src {
		if c == '\n' {
			x.newline = append(x.newline, i)
		}
	}
	defer func() {
		// The parser panics only on malformed ASTs, which a successful
		// decode rules out; keep the partial index regardless.
		_ = recover()
	}()
	var p unstable.Parser
	p.Reset(src)
	arrays := map[string]int{} // resolved array-table path → number of elements so far
	table := ""
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts, line := x.key(n)
			path := ""
			for i, part := range parts {
				path = joinPath(path, part)
				last := i == len(parts)-1
				if last && n.Kind == unstable.ArrayTable {
					x.setLine(path, line)
					c := arrays[path]
					arrays[path] = c + 1
					path += "[" + strconv.Itoa(c) + "]"
				} else if c := arrays[path]; c > 0 {
					path += "[" + strconv.Itoa(c-1) + "]"
				}
				if last {
					x.lines[path] = line
				} else {
					x.setLine(path, line)
				}
			}
			table = path
		case unstable.KeyValue:
			x.keyValue(table, n)
		}
	}
	return x
}

// key returns the lower-cased parts of the key of a table header or
// key-value node and the line of its first part.
func (x *posIndex) key(n *unstable.Node) ([]string, int) {
	var parts []string
	line := 0
	it := n.Key()
	for it.Next() {
		k := it.Node()
		if line == 0 {
			line = x.lineAt(k.Raw)
		}
		parts = append(parts, strings.ToLower(string(k.Data)))
	}
	return parts, line
}

func (x *posIndex) keyValue(table string, n *unstable.Node) {
	parts, line := x.key(n)
	path := table
	for _, part := range parts {
		path = joinPath(path, part)
		x.setLine(path, line)
	}
	x.lines[path] = line
	x.value(path, n.Value(), line)
}

// value indexes the value v found at path on line.
func (x *posIndex) value(path string, v *unstable.Node, line int) {
	if !v.Valid() {
		return
	}
	x.kinds[path] = v.Kind
	switch v.Kind {
	case unstable.Array:
		i := 0
		it := v.Children()
		for it.Next() {
			e := it.Node()
			if e.Kind == unstable.Comment {
				continue
			}
			p := path + "[" + strconv.Itoa(i) + "]"
			l := line
			if e.Raw.Length > 0 {
				l = x.lineAt(e.Raw)
			}
			x.lines[p] = l
			x.value(p, e, l)
			i++
		}
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				x.keyValue(path, kv)
			}
		}
	}
}

func (x *posIndex) setLine(path string, line int) {
	if _, ok := x.lines[path]; !ok {
		x.lines[path] = line
	}
}

// lineAt returns the 1-based line of the start of r.
func (x *posIndex) lineAt(r unstable.Range) int {
	return sort.SearchInts(x.newline, int(r.Offset)) + 1
}

// has reports whether path is written in the spec.
func (x *posIndex) has(path string) bool {
	_, ok := x.lines[strings.ToLower(path)]
	return ok
}

// kind returns the TOML kind of the value at path, or Invalid.
func (x *posIndex) kind(path string) unstable.Kind {
	return x.kinds[strings.ToLower(path)]
}

// line returns the line of path or, when path is not written (a default
// or a missing key), of its nearest written ancestor; 0 when none is.
func (x *posIndex) line(path string) int {
	path = strings.ToLower(path)
	for path != "" {
		if l, ok := x.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return 0
		}
		path = path[:i]
	}
	return 0
}

func joinPath(base, part string) string {
	if base == "" {
		return part
	}
	return base + "." + part
}
