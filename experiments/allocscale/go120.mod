// go120.mod is the module file the go1.20 config builds with
// (config field modfile, passed to the go command as -modfile): the
// checkout's go.mod asks for a newer Go than go1.20 accepts. This package
// and benchmetrics, the only packages its test binary needs, use the
// standard library alone, so no requirement is listed.
module github.com/perflab/perflab

go 1.20
