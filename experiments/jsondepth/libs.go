package jsondepth

import (
	"encoding/json"
	"fmt"

	gojsonexp "github.com/go-json-experiment/json"
	goccy "github.com/goccy/go-json"
	jsoniter "github.com/json-iterator/go"
	"github.com/mailru/easyjson"
	segmentio "github.com/segmentio/encoding/json"
)

// Library is one JSON library under test, reduced to the two calls the
// experiment times.
type Library struct {
	// Name is the library's value of the benchmark's lib axis.
	Name string
	// Import is the package path, for reports and documentation.
	Import string
	// Marshal encodes v. v is a *L<depth> or, for op=any, an L<depth>
	// value held in an interface.
	Marshal func(v any) ([]byte, error)
	// Unmarshal decodes data into v, a *L<depth>.
	Unmarshal func(data []byte, v any) error
	// Skip, when not empty, says why the library cannot run in this build
	// (another GOEXPERIMENT, another GOARCH); Marshal and Unmarshal are nil.
	Skip string
}

// jsoniterStd is jsoniter configured to behave like encoding/json.
var jsoniterStd = jsoniter.ConfigCompatibleWithStandardLibrary

// Libraries returns every library in a fixed order, encoding/json first.
// Libraries that need another build (json_v2 without GOEXPERIMENT=jsonv2,
// sonic off amd64/arm64) are present with Skip set.
func Libraries() []Library {
	return []Library{
		{Name: "encoding_json", Import: "encoding/json", Marshal: json.Marshal, Unmarshal: json.Unmarshal},
		jsonV2,
		{Name: "go_json_experiment", Import: "github.com/go-json-experiment/json",
			Marshal:   func(v any) ([]byte, error) { return gojsonexp.Marshal(v) },
			Unmarshal: func(data []byte, v any) error { return gojsonexp.Unmarshal(data, v) }},
		sonicLib,
		{Name: "goccy", Import: "github.com/goccy/go-json", Marshal: goccy.Marshal, Unmarshal: goccy.Unmarshal},
		{Name: "jsoniter", Import: "github.com/json-iterator/go (ConfigCompatibleWithStandardLibrary)",
			Marshal: jsoniterStd.Marshal, Unmarshal: jsoniterStd.Unmarshal},
		{Name: "segmentio", Import: "github.com/segmentio/encoding/json", Marshal: segmentio.Marshal, Unmarshal: segmentio.Unmarshal},
		{Name: "easyjson", Import: "github.com/mailru/easyjson (generated marshalers)", Marshal: easyMarshal, Unmarshal: easyUnmarshal},
	}
}

// Lookup returns the library called name.
func Lookup(name string) (Library, bool) {
	for _, l := range Libraries() {
		if l.Name == name {
			return l, true
		}
	}
	return Library{}, false
}

// easyMarshal calls the marshaler easyjson generated for v's type; through
// an interface that is a type assertion, which is all easyjson offers.
func easyMarshal(v any) ([]byte, error) {
	m, ok := v.(easyjson.Marshaler)
	if !ok {
		return nil, fmt.Errorf("easyjson: %T has no generated marshaler; run go generate in experiments/jsondepth", v)
	}
	return easyjson.Marshal(m)
}

func easyUnmarshal(data []byte, v any) error {
	u, ok := v.(easyjson.Unmarshaler)
	if !ok {
		return fmt.Errorf("easyjson: %T has no generated unmarshaler; run go generate in experiments/jsondepth", v)
	}
	return easyjson.Unmarshal(data, u)
}
