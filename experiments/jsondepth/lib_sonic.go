//go:build (amd64 || arm64) && !go1.28

package jsondepth

import "github.com/bytedance/sonic"

// sonicLib is sonic's default configuration. This file builds only where
// sonic uses its own JIT encoder and decoder; elsewhere sonic's API falls
// back to encoding/json, which would be measured under sonic's name.
var sonicLib = Library{Name: "sonic", Import: "github.com/bytedance/sonic (ConfigDefault)",
	Marshal: sonic.Marshal, Unmarshal: sonic.Unmarshal}
