package spec

import (
	"fmt"
	"strings"
)

// ParseSelector parses a selector: comma-separated key=value pairs such as
// "mode=serial,size=64". Keys match [A-Za-z0-9_.]+; values are non-empty
// and contain no commas, '=' or spaces; a key appears once. Spaces around a
// pair are ignored. The empty selector yields no pairs and no error.
func ParseSelector(s string) ([][2]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var pairs [][2]string
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("selector %q has an empty pair; write key=value pairs separated by single commas", s)
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("selector %q: %q is not key=value", s, item)
		}
		if !isSelectorKey(k) {
			return nil, fmt.Errorf("selector %q: key %q must be non-empty and use only letters, digits, '_' and '.'", s, k)
		}
		if v == "" {
			return nil, fmt.Errorf("selector %q: key %q has an empty value", s, k)
		}
		if strings.ContainsAny(v, "= \t\r\n") {
			return nil, fmt.Errorf("selector %q: value %q of key %q must not contain '=' or spaces", s, v, k)
		}
		if seen[k] {
			return nil, fmt.Errorf("selector %q names key %q twice", s, k)
		}
		seen[k] = true
		pairs = append(pairs, [2]string{k, v})
	}
	return pairs, nil
}

func isSelectorKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !isWordRune(c) && c != '.' {
			return false
		}
	}
	return true
}

func isWordRune(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// ShortSelector drops the key names of a selector for display:
// "variant=syncpool,reuse=25" → "syncpool@25"; a selector it cannot
// parse is returned as it is.
func ShortSelector(sel string) string {
	kv, err := ParseSelector(sel)
	if err != nil || len(kv) == 0 {
		return sel
	}
	vals := make([]string, len(kv))
	for i, p := range kv {
		vals[i] = p[1]
	}
	return strings.Join(vals, "@")
}
