package builtin

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// claimsList is the list of published claims the built-in suite encodes:
// a copy of the shared CLAIMS.md, kept with the tests so that they never
// depend on a file outside the checkout.
var claimsList = filepath.Join("testdata", "CLAIMS.md")

// pendingClaims are the claim IDs of the claims list that no built-in spec
// encodes yet, each with what it waits for (ID → reason). Every claim is
// encoded today.
var pendingClaims = map[string]string{}

// sharedClaims finds CLAIMS.md in a directory named shared beside the
// repository root (the checkout's ../shared), looking up from the test's
// directory so a worktree nested deeper finds it too, or at
// $PERFLAB_CLAIMS_MD; "" when there is none.
func sharedClaims(t *testing.T) string {
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

// claimRow is a row of the claims list's tables: "| ID | text |".
var claimRow = regexp.MustCompile(`(?m)^\|\s*([A-Z][0-9]+)\s*\|\s*(.*?)\s*\|\s*$`)

// normText is a claim's text as compared: Markdown code marks dropped and
// white space collapsed.
func normText(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "`", "")), " ")
}

// TestEveryClaimEncoded: every claim of the claims list is a claim of some
// built-in spec (with checks, or marked not testable), under its ID and
// with its text, unless it is listed as pending; and every built-in claim
// is in the list, or refines one (ID "B2.fx" refines B2). The list must be
// present: without it the test fails.
func TestEveryClaimEncoded(t *testing.T) {
	data, err := os.ReadFile(claimsList)
	if err != nil {
		t.Fatalf("the claims list the built-in suite is held to: %v (restore %s, a copy of the shared CLAIMS.md)", err, claimsList)
	}
	if p := sharedClaims(t); p != "" {
		shared, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("reading the shared claims list: %v", err)
		}
		if !bytes.Equal(shared, data) {
			t.Errorf("%s differs from the shared %s: copy the shared list over it (cp %s %s) and encode what changed", claimsList, p, p, claimsList)
		}
	}
	texts := map[string]string{}
	var ids []string
	for _, m := range claimRow.FindAllStringSubmatch(string(data), -1) {
		ids = append(ids, m[1])
		texts[m[1]] = m[2]
	}
	if len(ids) < 30 {
		t.Fatalf("%s lists %d claim IDs; the table format may have changed (want rows like \"| A1 | ... |\")", claimsList, len(ids))
	}
	encoded := map[string]string{}
	for _, name := range Names() {
		s, err := Spec(name)
		if err != nil {
			t.Fatalf("built-in %s: %v", name, err)
		}
		for _, c := range s.Claims {
			encoded[c.ID] = name
			want, listed := texts[c.ID]
			base, _, refines := strings.Cut(c.ID, ".")
			switch {
			case listed && normText(c.Text) != normText(want):
				t.Errorf("%s: claim %s's text differs from the claims list's:\n spec: %s\n list: %s", name, c.ID, c.Text, want)
			case !listed && (!refines || texts[base] == ""):
				t.Errorf("%s: claim %s is not in %s and refines none of its claims (an ID such as B2.fx refines B2)", name, c.ID, claimsList)
			}
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
			t.Errorf("claim %s of %s is in no built-in spec; encode it (with checks, or not_testable with the reason)", id, claimsList)
		}
	}
	for id := range pendingClaims {
		if !slices.Contains(ids, id) {
			t.Errorf("pending claim %s is not in %s; remove it from pendingClaims", id, claimsList)
		}
	}
}
