package gjson

// A planted slowdown of Get, for varlab layouts -planted (docs/varlab.md):
// Get first reads every 16th byte of the document and the path, then runs
// the original Get, renamed plantedGet, whose code is left as it was. Copy
// this file into a copy of github.com/tidwall/gjson and rename Get with
//
//	sed -i 's/^func Get(json, path string) Result {$/func plantedGet(json, path string) Result {/' gjson.go

// Get searches json for the specified path, after the planted work.
func Get(json, path string) Result {
	plantedSum(json, path)
	return plantedGet(json, path)
}

//go:noinline
func plantedSum(json, path string) {
	s := 0
	for i := 0; i < len(json); i += 16 {
		s += int(json[i])
	}
	for i := 0; i < len(path); i++ {
		s += int(path[i])
	}
	plantedSink += s
}

var plantedSink int
