package builtin

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/perflab/perflab/spec"
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

// auditRow is a row of docs/claims.md's table of the built-in suite:
// "| claims | article line | situation | setting |".
var auditRow = regexp.MustCompile(`(?m)^\| ([A-E][0-9][^|]*?) \| ([^|]*?) \| ([^|]*?) \| ([^|]*?) \|$`)

// auditIDs expands a row's claim cell: "A1–A4", "E1, E2", "B6".
func auditIDs(t *testing.T, cell string) []string {
	var ids []string
	for _, part := range strings.Split(cell, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "–")
		if !isRange {
			ids = append(ids, part)
			continue
		}
		var a, b int
		if _, err := fmt.Sscanf(lo[1:]+" "+hi[1:], "%d %d", &a, &b); err != nil || lo[0] != hi[0] {
			t.Fatalf("docs/claims.md: cannot read the claims %q", part)
		}
		for i := a; i <= b; i++ {
			ids = append(ids, fmt.Sprintf("%c%d", lo[0], i))
		}
	}
	return ids
}

// TestAuditTable: docs/claims.md's table of the built-in suite has a row
// for every claim of the claims list; a claim with a precondition names
// its situation there, and a claim declared not testable says so.
func TestAuditTable(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "docs", "claims.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, m := range auditRow.FindAllStringSubmatch(string(md), -1) {
		for _, id := range auditIDs(t, m[1]) {
			rows[id] = m[2:]
		}
	}
	for _, name := range Names() {
		s, err := Spec(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Claims {
			if strings.Contains(c.ID, ".") {
				continue // refines a listed claim
			}
			row, ok := rows[c.ID]
			if !ok {
				t.Errorf("docs/claims.md: no row for %s (%s)", c.ID, name)
				continue
			}
			situation := row[1]
			pre := slices.ContainsFunc(c.Checks, func(ch spec.Check) bool { return ch.Precondition != "" })
			switch {
			case c.NotTestable != "" && !strings.HasPrefix(situation, "not testable"):
				t.Errorf("docs/claims.md: %s is declared not testable, but its row says %q", c.ID, situation)
			case pre && (situation == "—" || situation == ""):
				t.Errorf("docs/claims.md: %s has a precondition, but its row names no situation", c.ID)
			case !pre && c.NotTestable == "" && situation != "—":
				t.Errorf("docs/claims.md: %s has no precondition, but its row names the situation %q", c.ID, situation)
			}
		}
	}
}
