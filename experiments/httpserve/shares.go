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

// Parts are the CPU shares the experiment reports:
//
//   - cpu-json-share: encoding the response as JSON, in encoding/json or
//     any of the codecs' packages (easyjson's generated code included);
//   - cpu-dbconn-share: handling database connections: acquiring one from
//     database/sql's pool, opening a new one, preparing the statements on
//     it, and closing connections the pool does not keep;
//   - cpu-clock-share: time.Now;
//   - cpu-db-share: all of SQLite (modernc.org/sqlite), for context.
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
	{"cpu-dbconn-share", func(fn string) bool {
		switch fn {
		case "database/sql.(*DB).conn", "database/sql.(*Stmt).connStmt", "database/sql.(*driverConn).finalClose",
			"database/sql.(*DB).putConn", "database/sql.(*DB).openNewConnection":
			return true
		}
		return false
	}},
	{"cpu-clock-share", func(fn string) bool { return fn == "time.Now" }},
	{"cpu-db-share", func(fn string) bool { return strings.HasPrefix(fn, "modernc.org/sqlite") }},
}

// Shares parses a CPU profile and returns, for each of parts, the fraction
// of CPU samples whose stack holds a matching function (inlined frames
// included; a sample counts once per part however many frames match), and
// the number of samples.
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
	var total int64
	for _, s := range p.Sample {
		if idx >= len(s.Value) {
			return nil, 0, fmt.Errorf("parsing the CPU profile: a sample has %d values, want more than %d", len(s.Value), idx)
		}
		n := s.Value[idx]
		if n <= 0 {
			continue
		}
		total += n
		seen := make([]bool, len(parts))
		for _, loc := range s.Location {
			if loc == nil {
				continue
			}
			for _, ln := range loc.Line {
				if ln.Function == nil {
					continue
				}
				for i, part := range parts {
					if !seen[i] && part.Match(ln.Function.Name) {
						seen[i] = true
					}
				}
			}
		}
		for i := range parts {
			if seen[i] {
				hits[i] += n
			}
		}
	}
	out := map[string]float64{}
	if total == 0 {
		return out, 0, nil
	}
	for i, part := range parts {
		out[part.Unit] = float64(hits[i]) / float64(total)
	}
	return out, total, nil
}
