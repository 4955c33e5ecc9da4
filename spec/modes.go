package spec

import "slices"

// InMode reports whether the config runs in mode: its Modes list it, or
// it lists none.
func (c Config) InMode(mode string) bool {
	return len(c.Modes) == 0 || slices.Contains(c.Modes, mode)
}

// ForMode returns a copy of the spec whose Configs are those that run in
// mode. The copy shares everything else with s.
func (s *Spec) ForMode(mode string) *Spec {
	out := *s
	out.Configs = nil
	for _, c := range s.Configs {
		if c.InMode(mode) {
			out.Configs = append(out.Configs, c)
		}
	}
	return &out
}

// configModes validates a config's modes list: each "quick" or "full",
// none twice.
func (v *validator) configModes(path, name string, modes []string) []string {
	seen := map[string]bool{}
	for _, m := range modes {
		switch {
		case m != "quick" && m != "full":
			v.at(path, "config %q modes: %q is not a mode; use \"quick\" and/or \"full\"", name, m)
		case seen[m]:
			v.at(path, "config %q modes lists %q twice", name, m)
		}
		seen[m] = true
	}
	if v.idx.has(path) && len(modes) == 0 {
		v.at(path, "config %q modes is empty; list \"quick\" and/or \"full\", or remove modes to run in every mode", name)
	}
	return modes
}
