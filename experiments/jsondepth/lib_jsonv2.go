//go:build goexperiment.jsonv2

package jsondepth

import jsonv2 "encoding/json/v2"

// JSONv2 reports whether this build has GOEXPERIMENT=jsonv2: then
// encoding/json/v2 exists and encoding/json itself is implemented on top
// of it.
const JSONv2 = true

var jsonV2 = Library{Name: "json_v2", Import: "encoding/json/v2",
	Marshal:   func(v any) ([]byte, error) { return jsonv2.Marshal(v) },
	Unmarshal: func(data []byte, v any) error { return jsonv2.Unmarshal(data, v) }}
