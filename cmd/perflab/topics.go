package main

import "github.com/perflab/perflab/spec"

// helpTopics are "perflab help TOPIC" pages that are not commands.
var helpTopics = map[string]func() string{
	"spec": func() string {
		return "The spec format (perflab run SPEC.toml; perflab init writes one to start from).\n\n" + spec.Doc()
	},
}
