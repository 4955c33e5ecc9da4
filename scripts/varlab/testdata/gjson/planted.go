package gjson

// plantedSum is a planted slowdown of Get: it reads every 16th byte of the
// document and of the path, which Get then calls first (docs/varlab.md).
// Copy it into a copy of github.com/tidwall/gjson and insert the call with
//
//	sed -i 's/^func Get(json, path string) Result {$/&\n\tplantedSum(json, path)/' gjson.go
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
