//go:build !unix

package orders

func cpuSeconds() float64 { return 0 }
