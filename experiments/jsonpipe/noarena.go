//go:build !goexperiment.arenas

package jsonpipe

const needsArenas = "needs GOEXPERIMENT=arenas (package arena exists only in that build)"

func arenaVariants() []Variant {
	return []Variant{
		{Name: "arena", Stages: pooledStages, NotApplicable: needsArenas},
		{Name: "arenamap", Stages: pooledStages, NotApplicable: needsArenas},
		{Name: "arenatree", Stages: pooledStages, NotApplicable: needsArenas},
	}
}
