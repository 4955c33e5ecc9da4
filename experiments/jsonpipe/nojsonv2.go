//go:build !goexperiment.jsonv2

package jsonpipe

func jsonv2Variant() Variant {
	return Variant{Name: "jsonv2", Stages: mapStages, NotApplicable: "needs GOEXPERIMENT=jsonv2 (package encoding/json/v2 exists only in that build)"}
}
