package jsonpipe

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generator's golden files in testdata/gen")

// TestGenerateDeterministic: the same seed and size give the same bytes;
// another seed gives other bytes.
func TestGenerateDeterministic(t *testing.T) {
	for _, size := range []int{MinSize, 10 << 10, 64 << 10, 1 << 20} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			a, err := Generate(7, size)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Generate(7, size)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.JSON, b.JSON) {
				t.Fatalf("two documents from seed 7 differ at byte %d", firstByteDiff(a.JSON, b.JSON))
			}
			c, err := Generate(8, size)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(a.JSON, c.JSON) {
				t.Fatal("seeds 7 and 8 gave the same document")
			}
		})
	}
}

func firstByteDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestGenerateGolden pins the generator's output across releases: the
// 1 KiB document byte for byte, larger ones by SHA-256 (testdata/gen).
// Run with -update after an intended change to the generator.
func TestGenerateGolden(t *testing.T) {
	small, err := Generate(Seed, MinSize)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("testdata", "gen", "seed1-1024.json")
	sums := filepath.Join("testdata", "gen", "sha256.txt")
	sizes := []int{10 << 10, 64 << 10, 1 << 20}
	if *update {
		if err := os.WriteFile(file, small.JSON, 0o644); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("# seed size sha256 of Generate(seed, size)\n")
		for _, size := range sizes {
			d, err := Generate(Seed, size)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%d %d %s\n", Seed, size, sha(d.JSON))
		}
		if err := os.WriteFile(sums, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGenerateGolden -update to create it)", err)
	}
	if !bytes.Equal(small.JSON, want) {
		t.Errorf("Generate(%d, %d) differs from %s at byte %d", Seed, MinSize, file, firstByteDiff(small.JSON, want))
	}
	f, err := os.Open(sums)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		var seed uint64
		var size int
		var sum string
		if _, err := fmt.Sscan(line, &seed, &size, &sum); err != nil {
			t.Fatalf("%s: bad line %q: %v", sums, line, err)
		}
		d, err := Generate(seed, size)
		if err != nil {
			t.Fatal(err)
		}
		if got := sha(d.JSON); got != sum {
			t.Errorf("Generate(%d, %d): sha256 %s, want %s", seed, size, got, sum)
		}
		n++
	}
	if n != len(sizes) {
		t.Errorf("%s holds %d sums, want %d", sums, n, len(sizes))
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestGenerateShape: exact size, 8 levels of nesting, the promised number
// of fields (~12k at 5 MiB), and JSON that decodes to Doc.Value.
func TestGenerateShape(t *testing.T) {
	tests := []struct {
		size, fields int
	}{
		{MinSize, MinFields},
		{10 << 10, 23},
		{64 << 10, 150},
		{1 << 20, 2400},
		{5 << 20, 12000},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.size), func(t *testing.T) {
			if tt.size > 1<<20 && testing.Short() {
				t.Skip("5 MiB document in -short mode")
			}
			if got := FieldsFor(tt.size); got != tt.fields {
				t.Errorf("FieldsFor(%d) = %d, want %d", tt.size, got, tt.fields)
			}
			d, err := Generate(3, tt.size)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.JSON) != tt.size {
				t.Errorf("len = %d, want %d", len(d.JSON), tt.size)
			}
			var v any
			if err := json.Unmarshal(d.JSON, &v); err != nil {
				t.Fatalf("document is not JSON: %v", err)
			}
			if got := depth(v); got != Depth || d.Depth != Depth {
				t.Errorf("depth = %d (Doc.Depth %d), want %d", got, d.Depth, Depth)
			}
			if got := countFields(v); got != tt.fields || d.Fields != tt.fields {
				t.Errorf("fields = %d (Doc.Fields %d), want %d", got, d.Fields, tt.fields)
			}
			if diff := FirstDifference(v, d.Value); diff != "" {
				t.Errorf("decoded document differs from Doc.Value: %s", diff)
			}
		})
	}
}

// TestGenerateRoundTrip: Doc.Value survives encoding/json both ways.
func TestGenerateRoundTrip(t *testing.T) {
	d, err := Generate(11, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(d.Value)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if diff := FirstDifference(back, d.Value); diff != "" {
		t.Fatalf("Value after Marshal and Unmarshal: %s", diff)
	}
	if !bytes.ContainsAny(d.JSON, "\\<&") || !bytes.ContainsFunc(d.JSON, func(r rune) bool { return r > 0x7f }) {
		t.Error("document lacks escaped, HTML-sensitive or non-ASCII text; the specials are missing")
	}
}

func TestGenerateTooSmall(t *testing.T) {
	if _, err := Generate(1, MinSize-1); err == nil || !strings.Contains(err.Error(), "minimum") {
		t.Fatalf("Generate below MinSize: err = %v, want a minimum-size error", err)
	}
}

func depth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, depth(e))
		}
	case []any:
		for _, e := range x {
			d = max(d, depth(e))
		}
	default:
		return 0
	}
	return d + 1
}

func countFields(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		n += len(x)
		for _, e := range x {
			n += countFields(e)
		}
	case []any:
		for _, e := range x {
			n += countFields(e)
		}
	}
	return n
}
