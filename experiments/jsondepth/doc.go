// Package jsondepth is the workload of the jsondepth experiment: JSON
// libraries timed on nested Go structs as the nesting depth grows.
//
// The experiment checks article B of the built-in suite: that encoding/json
// slows down sharply past 5 levels of nesting, more than jsoniter, with a
// knee at depth 6; that marshalling through interface{} costs extra; and
// that generated code beats reflection. The article's third library,
// "fxamacker/json", does not exist, so that part is not testable.
//
// # Documents
//
// The types are generated (types_gen.go, by internal/gendepth through go
// generate) and checked in, so every library sees concrete types as in
// real code: a level type Lk for k = 1..MaxDepth. L1 is the leaf (string,
// int, float and bool fields); every level also has a pointer field, a
// slice field, an anonymous struct field and an embedded struct whose
// fields are promoted into the level's JSON object. Level k links to level
// k-1 through a pointer (k%3 == 0), a slice of fan-out children (k%3 == 1)
// or an anonymous struct (k%3 == 2). A document of depth d is a *Ld built by
// [New] from a seed: the same seed always gives the same document. Strings
// sometimes carry characters that need escaping (HTML characters, quotes,
// a backslash, a tab, non-ASCII letters, U+2028).
//
// # Libraries
//
// [Libraries] lists the eight libraries, each a value of the benchmark's
// lib axis:
//
//	encoding_json       encoding/json
//	json_v2             encoding/json/v2 (only with GOEXPERIMENT=jsonv2)
//	go_json_experiment  github.com/go-json-experiment/json
//	sonic               github.com/bytedance/sonic, ConfigDefault (amd64 and arm64 only)
//	goccy               github.com/goccy/go-json
//	jsoniter            github.com/json-iterator/go, ConfigCompatibleWithStandardLibrary
//	segmentio           github.com/segmentio/encoding/json
//	easyjson            github.com/mailru/easyjson, marshalers generated into types_easyjson.go
//
// easyjson's marshalers are generated with -no_std_marshalers, so the types
// have no MarshalJSON method that the other libraries would call instead of
// doing their own work.
//
// With GOEXPERIMENT=jsonv2 (the spec's config jsonv2) encoding/json/v2
// exists and encoding/json itself is implemented on top of it; the report
// shows that build as its own config, so encoding_json there is the
// v2-backed encoding/json. Without the experiment, json_v2 cells skip
// themselves (not applicable). Where sonic would fall back to encoding/json
// (GOARCH other than amd64 and arm64, or Go 1.28 and later), its cells skip
// themselves as not testable rather than time encoding/json under sonic's
// name.
//
// # Flattened documents
//
// The op=marshal cells of encoding_json also time the flattened document
// right after the nested one, for as many calls, with the benchmark timer
// stopped: [Flatten] builds, with reflect.StructOf, one struct type holding
// every leaf of the document (no nested struct, pointer to a struct or
// slice of structs; keys are the leaves' own, numbered when repeated), as a
// flattening code generator would declare it. Each marshals it twice:
// with encoding/json, and with a [FlatMarshaler], the reflection-free code
// a generator would write for the flat type (field offsets and keys fixed
// once; its output checked to be encoding/json's, byte for byte). The
// cells report flat-ns/op and flat/nested, flatgen-ns/op and
// flatgen/nested: per-call times and their ratios to the nested call.
//
// # The article's boxed value
//
// The op=marshal and op=any cells of encoding_json at depth 1 and fan-out
// 1 also time article B's own boxed value, struct{ Name string }{"Alice"},
// through a typed pointer (op=marshal) or boxed into an interface on every
// call (op=any), after their own loop: alice-ns/op (stored by perflab,
// tidied, as alice-sec/op) and alice-B/op.
//
// # Correctness before speed
//
// Before timing, each cell runs [Gate] once: Marshal's output must decode
// (with encoding/json) to a value equal to the input and must equal
// encoding/json's output after [Normalize] (object keys sorted, strings
// re-escaped one way, numbers kept as written); Unmarshal of encoding/json's
// output must reproduce the input. A cell that fails calls
//
//	b.Fatalf("perflab: incorrect: %s", firstDifference)
//
// so the run records it as incorrect with the first difference, and it has
// no samples to rank. A cell that passes reports the unit "correct" = 1.
//
// # The benchmark
//
//	BenchmarkJSON/op=<marshal|unmarshal|any>/lib=<name>/fanout=<1..3>/depth=<1..12>
//
// op=marshal is Marshal(p) with p a *Ld; op=unmarshal decodes encoding/json's
// bytes for the document into a new Ld; op=any is Marshal(x) where x is an
// any that receives a fresh copy of the struct value on every call, as when
// a struct is passed to an interface{} parameter (for easyjson, a type
// assertion to easyjson.Marshaler, the only way it takes an interface).
// Besides sec/op, B/op and allocs/op, each cell reports the runtime metrics
// of package benchmetrics.
//
// # Running it
//
// With plain go test, from the module root:
//
//	go test -run '^$' -bench 'BenchmarkJSON/op=marshal/lib=(encoding_json|jsoniter)/fanout=1/' -benchmem ./experiments/jsondepth/
//	GOEXPERIMENT=jsonv2 go test -run '^$' -bench 'BenchmarkJSON/op=marshal/lib=json_v2/' ./experiments/jsondepth/
//
// To regenerate the types and easyjson's code after changing the generator:
//
//	go generate ./experiments/jsondepth/
package jsondepth
