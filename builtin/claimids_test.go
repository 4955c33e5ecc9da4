package builtin

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// pendingClaims are the claim IDs of CLAIMS.md that no built-in spec
// encodes yet, each with what it waits for (ID → reason). Every claim is
// encoded today.
var pendingClaims = map[string]string{}

// claimsFile finds CLAIMS.md in a directory named shared beside the
// repository root (the checkout's ../shared), looking up from the test's
// directory so a worktree nested deeper finds it too.
func claimsFile(t *testing.T) string {
	if p := os.Getenv("PERFLAB_CLAIMS_MD"); p != "" {
		return p
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		p := filepath.Join(dir, "shared", "CLAIMS.md")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

var claimRow = regexp.MustCompile(`(?m)^\|\s*([A-Z][0-9]+)\s*\|`)

// TestEveryClaimEncoded: every claim ID in the shared CLAIMS.md is a claim
// of some built-in spec (with checks or marked not testable), unless it is
// listed as pending.
func TestEveryClaimEncoded(t *testing.T) {
	path := claimsFile(t)
	if path == "" {
		t.Skip("CLAIMS.md not found in a shared/ directory above the checkout (set PERFLAB_CLAIMS_MD to its path)")
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is absent", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range claimRow.FindAllStringSubmatch(string(data), -1) {
		ids = append(ids, m[1])
	}
	if len(ids) < 30 {
		t.Fatalf("%s lists %d claim IDs; the table format may have changed (want rows like \"| A1 | ... |\")", path, len(ids))
	}
	encoded := map[string]string{}
	for _, name := range Names() {
		s, err := Spec(name)
		if err != nil {
			t.Fatalf("built-in %s: %v", name, err)
		}
		for _, c := range s.Claims {
			encoded[c.ID] = name
		}
	}
	for _, id := range ids {
		_, ok := encoded[id]
		why, pending := pendingClaims[id]
		switch {
		case ok && pending:
			t.Errorf("%s is encoded in %s: remove it from pendingClaims", id, encoded[id])
		case !ok && pending:
			t.Logf("%s pending: %s", id, why)
		case !ok:
			t.Errorf("claim %s of %s is in no built-in spec; encode it (with checks, or not_testable with the reason)", id, path)
		}
	}
	for id := range pendingClaims {
		if !slices.Contains(ids, id) {
			t.Errorf("pending claim %s is not in %s; remove it from pendingClaims", id, path)
		}
	}
}
