//go:build race

package gateway

// raceOn: the race detector makes sync.Pool drop objects on purpose.
const raceOn = true
