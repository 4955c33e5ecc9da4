//go:build !((amd64 || arm64) && !go1.28)

package jsondepth

import "runtime"

// sonicLib is not testable here: on this GOARCH or Go version sonic's API
// falls back to encoding/json, so timing it would time encoding/json.
var sonicLib = Library{Name: "sonic", Import: "github.com/bytedance/sonic",
	Skip: "not testable on " + runtime.GOARCH + "/" + runtime.Version() + ": sonic's own encoder needs amd64 or arm64 and Go before 1.28; elsewhere it falls back to encoding/json"}
