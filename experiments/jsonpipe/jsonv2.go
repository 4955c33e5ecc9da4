//go:build goexperiment.jsonv2

package jsonpipe

import (
	jsonv2 "encoding/json/v2"
)

func jsonv2Variant() Variant {
	return Variant{Name: "jsonv2", Stages: mapStages, New: newV2Pipe}
}

// The jsonv2 variant is heap with the marshal stage done by
// encoding/json/v2 with its default options (which, unlike encoding/json,
// neither sort map keys nor escape '<', '>' and '&').
func newV2Pipe() Pipeline {
	return &heapPipe{marshal: func(v any) ([]byte, error) { return jsonv2.Marshal(v) }}
}
