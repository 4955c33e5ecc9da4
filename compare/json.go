package compare

import (
	"encoding/json"
	"math"
)

// jsonNum is a float for JSON: NaN becomes null and infinities the strings
// "+Inf" and "-Inf", which encoding/json cannot write as numbers.
func jsonNum(f float64) any {
	switch {
	case math.IsNaN(f):
		return nil
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return f
}

// MarshalJSON writes the summary with non-finite numbers as null or "±Inf".
func (s Stat) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Median any `json:"median"`
		Lo     any `json:"lo"`
		Hi     any `json:"hi"`
		N      int `json:"n"`
	}{jsonNum(s.Median), jsonNum(s.Lo), jsonNum(s.Hi), s.N})
}

// MarshalJSON writes the row with non-finite numbers as null or "±Inf".
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row // without the method
	return json.Marshal(struct {
		plain
		Delta   any `json:"delta"`
		DeltaLo any `json:"delta_lo"`
		DeltaHi any `json:"delta_hi"`
		P       any `json:"p"`
	}{plain(r), jsonNum(r.Delta), jsonNum(r.DeltaLo), jsonNum(r.DeltaHi), jsonNum(r.P)})
}

// MarshalJSON writes the rule in its canonical text form.
func (t Threshold) MarshalJSON() ([]byte, error) { return json.Marshal(t.String()) }
