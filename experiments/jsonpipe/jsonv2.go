//go:build goexperiment.jsonv2

package jsonpipe

import (
	jsonv2 "encoding/json/v2"

	"github.com/tidwall/gjson"
)

func jsonv2Variant() Variant {
	return Variant{Name: "jsonv2", Stages: mapStages, New: func() Pipeline { return new(v2Pipe) }}
}

// v2Pipe is heap with the marshal stage done by encoding/json/v2 with its
// default options (which, unlike encoding/json, neither sort map keys nor
// escape '<', '>' and '&').
type v2Pipe struct{ out [1][]byte }

func (p *v2Pipe) Run(doc []byte, m *Meter, sink func([][]byte)) error {
	m.start()
	if !gjson.ValidBytes(doc) {
		return ErrInvalid
	}
	r := gjson.ParseBytes(doc)
	m.lap(Parse)
	v := build(r)
	m.lap(Build)
	out, err := jsonv2.Marshal(v)
	m.lap(Marshal)
	if err != nil {
		return err
	}
	if sink != nil {
		sink(one(&p.out, out))
	}
	return nil
}
