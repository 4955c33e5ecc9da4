package jsonpipe

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/tidwall/gjson"
)

// plantedVariant is heap with a deliberately wrong encoder: it adds one to
// the first number it finds (keys in sorted order) before marshalling.
func plantedVariant() Variant {
	return Variant{Name: "planted", Stages: mapStages, New: func() Pipeline { return new(plantedPipe) }}
}

type plantedPipe struct{ out [1][]byte }

func (p *plantedPipe) Run(doc []byte, m *Meter, sink func([][]byte)) error {
	m.start()
	if !gjson.ValidBytes(doc) {
		return ErrInvalid
	}
	r := gjson.ParseBytes(doc)
	m.lap(Parse)
	v := build(r)
	corrupt(v)
	m.lap(Build)
	out, err := json.Marshal(v)
	m.lap(Marshal)
	if err != nil {
		return err
	}
	if sink != nil {
		sink(one(&p.out, out))
	}
	return nil
}

// corrupt adds one to the first number in v and reports whether it found one.
func corrupt(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if f, ok := x[k].(float64); ok {
				x[k] = f + 1
				return true
			}
			if corrupt(x[k]) {
				return true
			}
		}
	case []any:
		for i, e := range x {
			if f, ok := e.(float64); ok {
				x[i] = f + 1
				return true
			}
			if corrupt(e) {
				return true
			}
		}
	}
	return false
}
