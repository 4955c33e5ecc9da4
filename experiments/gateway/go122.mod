// go122.mod is the module file the go1.22 config builds with (config
// field modfile, passed to the go command as -modfile): the checkout's
// go.mod asks for a newer Go than go1.22 accepts. Under go1.22 this
// package's test binary holds the map benchmark alone (bench_old_test.go),
// which needs the standard library and benchmetrics only, so no
// requirement is listed.
module github.com/perflab/perflab

go 1.22
