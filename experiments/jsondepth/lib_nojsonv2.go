//go:build !goexperiment.jsonv2

package jsondepth

// JSONv2 reports whether this build has GOEXPERIMENT=jsonv2: then
// encoding/json/v2 exists and encoding/json itself is implemented on top
// of it.
const JSONv2 = false

var jsonV2 = Library{Name: "json_v2", Import: "encoding/json/v2",
	Skip: "needs GOEXPERIMENT=jsonv2: encoding/json/v2 exists only in that build (see config jsonv2)"}
