package cachegrind

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Units of the samples an instructions measurement yields. Simulated cache
// misses say so in the unit itself.
const (
	UnitInstructions = "instructions/op"
	UnitSimI1        = "sim-I1-misses/op" // simulated L1 instruction-cache misses
	UnitSimD1        = "sim-D1-misses/op" // simulated L1 data-cache misses, reads and writes
	UnitSimLL        = "sim-LL-misses/op" // simulated last-level misses, instructions and data
)

// Units lists the units above; every one is better lower.
var Units = []string{UnitInstructions, UnitSimI1, UnitSimD1, UnitSimLL}

// ArtifactKind is the artifact kind of a cell's per-function instruction
// counts: a JSON-lines file of [FuncRecord], one line per round.
const ArtifactKind = "functions"

// FuncRecord is one line of a functions artifact: one benchmark's
// instructions per op per function in one round.
type FuncRecord struct {
	Round int                `json:"round"`
	Name  string             `json:"name"` // the benchmark's full name, as its samples carry it
	N     int64              `json:"n"`    // the iteration counts were N and 2N
	Funcs map[string]float64 `json:"funcs"`
}

// ReadFuncRecords reads a functions artifact. A round written twice (a
// round interrupted and run again on resume) keeps its last line; lines
// that do not parse are skipped and counted in bad.
func ReadFuncRecords(path string) (recs []FuncRecord, bad int, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("reading per-function counts: %w", err)
	}
	index := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r FuncRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Funcs == nil || r.Name == "" {
			bad++
			continue
		}
		k := fmt.Sprintf("%d\x00%s", r.Round, r.Name)
		if i, ok := index[k]; ok {
			recs[i] = r
			continue
		}
		index[k] = len(recs)
		recs = append(recs, r)
	}
	return recs, bad, nil
}
