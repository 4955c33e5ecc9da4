package jsonpipe

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzPipeline feeds arbitrary bytes to every variant of this build. No
// variant may panic; gjson-invalid input must give ErrInvalid; a variant
// that succeeds must write JSON; and where encoding/json reads the input
// as the heap pipeline does (so gjson and encoding/json agree on it),
// every variant's output must decode to that same value.
func FuzzPipeline(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	d, err := Generate(Seed, MinSize)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(d.JSON)
	f.Add([]byte(`{"a":"\ud800","b":"\xff"}`))
	f.Add([]byte(`[1e400]`))
	vs := applicable()
	f.Fuzz(func(t *testing.T, in []byte) {
		var want any
		wantErr := json.Unmarshal(in, &want)
		var base any
		baseOK := false
		for _, v := range vs {
			var out []byte
			var m Meter
			err := v.New().Run(in, &m, func(chunks [][]byte) {
				for _, c := range chunks {
					out = append(out, c...)
				}
			})
			if errors.Is(err, ErrInvalid) {
				continue
			}
			if err != nil {
				if wantErr == nil && v.Name != "jsonv2" && utf8.Valid(in) {
					// encoding/json accepts the input; only encoding/json/v2
					// may refuse it (it rejects invalid UTF-8).
					t.Errorf("%s: %v on input encoding/json accepts", v.Name, err)
				}
				continue
			}
			if !json.Valid(out) {
				t.Fatalf("%s wrote invalid JSON %q for %q", v.Name, out, in)
			}
			var got any
			if json.Unmarshal(out, &got) != nil {
				continue // valid JSON that encoding/json cannot hold, e.g. 1e400 copied by direct
			}
			if v.Name == "heap" {
				base, baseOK = got, wantErr == nil && FirstDifference(got, want) == ""
				continue
			}
			if baseOK {
				if diff := FirstDifference(got, want); diff != "" {
					t.Errorf("%s: output for %q differs: %s", v.Name, in, diff)
				}
			} else if base != nil && v.Name != "direct" {
				if diff := FirstDifference(got, base); diff != "" {
					t.Errorf("%s: output for %q differs from heap's: %s", v.Name, in, diff)
				}
			}
		}
	})
}
