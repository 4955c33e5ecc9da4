//go:build !goexperiment.arenas

package allocscale

func newArenaLogger() (Logger, error) { return nil, ErrNeedsArenas }
