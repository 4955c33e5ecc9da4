package spec

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigModes(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "config_modes.toml"))
	if err != nil {
		t.Fatal(err)
	}
	names := func(s *Spec) string {
		var n []string
		for _, c := range s.Configs {
			n = append(n, c.Name)
		}
		return strings.Join(n, ",")
	}
	if got := names(s.ForMode("quick")); got != "base" {
		t.Errorf("quick configs = %s, want base", got)
	}
	if got := names(s.ForMode("full")); got != "base,old" {
		t.Errorf("full configs = %s, want base,old", got)
	}
	if got := names(s); got != "base,old" {
		t.Errorf("ForMode changed the spec: configs = %s", got)
	}
	_, err = Load(filepath.Join("testdata", "config_modes_bad.toml"))
	if err == nil || !strings.Contains(err.Error(), `config_modes_bad.toml:27: config "old" modes: "slow" is not a mode`) {
		t.Errorf("bad modes: error %v", err)
	}
}
