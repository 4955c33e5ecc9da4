package httpserve

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
)

// A Part is a slice of the service's CPU time that article D's profile
// talks about, recognised by the functions on a sample's stack.
type Part struct {
	Unit  string // benchmark unit of its share, e.g. "cpu-json-share"
	Match func(fn string) bool
}

// Parts are the CPU shares the experiment reports, as fractions of the
// service's own CPU samples: all samples except those running the embedded
// SQLite engine for a query. In the article's setup the database runs in a
// server of its own, outside the profiled process; here it runs inside it,
// so its query work is set apart (and reported as cpu-db-share):
//
//   - cpu-json-share: encoding the response as JSON, in encoding/json or
//     any of the codecs' packages (easyjson's generated code included);
//   - cpu-dbconn-share: handling database connections: acquiring one from
//     database/sql's pool, opening a new one, preparing the statements on
//     it, and closing connections the pool does not keep (SQLite work done
//     for these counts here, not as query work);
//   - cpu-clock-share: time.Now.
var Parts = []Part{
	{"cpu-json-share", func(fn string) bool {
		for _, p := range []string{"encoding/json.", "github.com/mailru/easyjson", "github.com/json-iterator/go", "github.com/goccy/go-json",
			"github.com/segmentio/encoding", "github.com/bytedance/sonic", "github.com/go-json-experiment/json",
			"github.com/perflab/perflab/target/orders.easyjson"} {
			if strings.HasPrefix(fn, p) {
				return true
			}
		}
		return strings.HasPrefix(fn, "github.com/perflab/perflab/target/orders.") && strings.Contains(fn, "MarshalEasyJSON")
	}},
	{"cpu-dbconn-share", isDBConn},
	{"cpu-clock-share", func(fn string) bool { return fn == "time.Now" }},
}

// DBUnit is the unit of the share of all CPU samples that run the SQLite
// engine for a query (connection handling excluded).
const DBUnit = "cpu-db-share"

func isDBConn(fn string) bool {
	switch fn {
	case "database/sql.(*DB).conn", "database/sql.(*Stmt).connStmt", "database/sql.(*driverConn).finalClose",
		"database/sql.(*DB).putConn", "database/sql.(*DB).openNewConnection":
		return true
	}
	return false
}

func isSQLite(fn string) bool {
	return strings.HasPrefix(fn, "modernc.org/sqlite") || strings.HasPrefix(fn, "modernc.org/libc")
}

// Shares parses a CPU profile and returns the share of each of parts (a
// sample counts once per part however many of its frames match, inlined
// frames included) among the service's own samples, DBUnit's share among
// all samples, and the number of the service's own samples.
func Shares(data []byte, parts []Part) (map[string]float64, int64, error) {
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, 0, fmt.Errorf("parsing the CPU profile: %w", err)
	}
	idx := 0
	for i, st := range p.SampleType {
		if st.Type == "samples" {
			idx = i
		}
	}
	hits := make([]int64, len(parts))
	var all, own int64
	seen := make([]bool, len(parts))
	for _, s := range p.Sample {
		if idx >= len(s.Value) {
			return nil, 0, fmt.Errorf("parsing the CPU profile: a sample has %d values, want more than %d", len(s.Value), idx)
		}
		n := s.Value[idx]
		if n <= 0 {
			continue
		}
		all += n
		clear(seen)
		sqlite, conn := false, false
		for _, loc := range s.Location {
			if loc == nil {
				continue
			}
			for _, ln := range loc.Line {
				if ln.Function == nil {
					continue
				}
				fn := ln.Function.Name
				sqlite = sqlite || isSQLite(fn)
				conn = conn || isDBConn(fn)
				for i, part := range parts {
					if !seen[i] && part.Match(fn) {
						seen[i] = true
					}
				}
			}
		}
		if sqlite && !conn {
			continue // the database engine running a query
		}
		own += n
		for i := range parts {
			if seen[i] {
				hits[i] += n
			}
		}
	}
	out := map[string]float64{}
	if all == 0 {
		return out, 0, nil
	}
	out[DBUnit] = float64(all-own) / float64(all)
	if own > 0 {
		for i, part := range parts {
			out[part.Unit] = float64(hits[i]) / float64(own)
		}
	}
	return out, own, nil
}
