package spec

import (
	"strings"
	"testing"
)

func TestDoc(t *testing.T) {
	d := Doc()
	for _, want := range []string{"spec.toml:12: unknown key", "[[config]]", "\nCLAIMS AND CHECKS\n", "profile_benchtime"} {
		if !strings.Contains(d, want) {
			t.Errorf("Doc() lacks %q", want)
		}
	}
	if strings.Contains(d, "package spec\n") || strings.Contains(d, "\n//") {
		t.Errorf("Doc() holds Go source:\n%s", d)
	}
}
