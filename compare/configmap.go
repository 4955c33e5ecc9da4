package compare

import (
	"fmt"
	"strings"
)

// ParseConfigMap reads --map values "old=new" (repeatable, or
// comma-separated) into an old → new config map.
func ParseConfigMap(specs []string) (map[string]string, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, spec := range specs {
		for _, p := range strings.Split(spec, ",") {
			o, n, ok := strings.Cut(strings.TrimSpace(p), "=")
			o, n = strings.TrimSpace(o), strings.TrimSpace(n)
			if !ok || o == "" || n == "" {
				return nil, fmt.Errorf("config map %q: want OLD=NEW, e.g. default=go126", p)
			}
			if prev, dup := m[o]; dup && prev != n {
				return nil, fmt.Errorf("config map: %s is mapped to both %s and %s", o, prev, n)
			}
			m[o] = n
		}
	}
	return m, nil
}
