package spec

import (
	_ "embed"
	"strings"
)

//go:embed doc.go
var docSource string

// Doc returns the spec format as plain text: this package's documentation
// (the same text go doc prints), for "perflab help spec".
func Doc() string {
	var b strings.Builder
	for _, line := range strings.Split(docSource, "\n") {
		if strings.HasPrefix(line, "package ") {
			break
		}
		text, ok := strings.CutPrefix(line, "//")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(text, "\t"):
			text = "    " + text[1:] // a code block
		case strings.HasPrefix(text, " # "):
			text = "\n" + strings.ToUpper(strings.TrimPrefix(text, " # ")) // a heading
		default:
			text = strings.TrimPrefix(text, " ")
		}
		b.WriteString(text)
		b.WriteByte('\n')
	}
	return strings.Replace(b.String(), "Package spec parses", "perflab's spec package parses", 1)
}
