// go118.mod is the module file the go1.18 config builds with (config
// field modfile, passed to the go command as -modfile): the checkout's
// go.mod asks for a newer Go than go1.18 accepts. This package,
// benchmetrics and profshare (built under the config's profshare tag, for
// the lock-share window) are the packages its test binary needs; profshare
// reads CPU profiles with github.com/google/pprof, here at a version that
// Go 1.18 builds (go118.sum holds the sums).
module github.com/perflab/perflab

go 1.18

require github.com/google/pprof v0.0.0-20221118152302-e6195bd50e26

require github.com/ianlancetaylor/demangle v0.0.0-20220319035150-800ac71e25c2 // indirect
