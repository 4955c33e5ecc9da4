// Package load generates HTTP/1.1 load against a local target and measures
// it without coordinated omission.
//
// Its one job is to turn a target URL and a load step (a rate or a number
// of connections, a duration) into latency histograms, counts and Go
// benchmark records, and to say whether the generator itself kept up.
//
// # Models
//
// In the open model ([Step] with Rate > 0) request i is due at its intended
// time i/Rate after the start. A single pacer hands every due request to
// an idle connection; it sleeps coarsely until about a millisecond before
// the next request is due and then waits on a timerfd read through the
// network poller (on Linux), which wakes within tens of microseconds, so
// requests leave in small batches rather than in the millisecond batches
// time.Sleep would give. Latency is measured from the intended time, so a
// server that stalls is charged for every request that had to wait behind
// the stall, not only for the one that was in flight; the service time,
// measured from the actual write, is kept beside it. When every
// connection is busy requests wait in a backlog (their wait counts as
// latency); when the backlog is full they are counted as unsent.
//
// In the closed model (Rate == 0) Conns connections each send the next
// request as soon as the previous response arrived: the target's peak
// throughput, as wrk measures it.
//
// Each connection is owned by one worker goroutine with its own
// HdrHistograms of latency and service time (nanoseconds, 1 µs to 60 s, three
// significant figures); they are merged when the step ends. Requests are
// written as prepared bytes and responses are parsed by a small HTTP/1.1
// reader ([ReadResponse]) that discards bodies without allocating.
//
// # Generator health
//
// Every [Result] carries a [Health]: requested versus dispatched rate,
// the largest pacing lag, the number of late dispatches and the CPU the
// generator used. A step is Limited when more than 1% of requests were
// dispatched more than LateAfter behind schedule or the generator used
// more than 90% of its cores; such a step measured the generator, not the
// target, and callers must not report it as the target's result.
//
// # Knee search
//
// [Knee.Search] finds the highest rate whose corrected p99 latency stays
// within an SLO with errors under a bound: coarse steps by a growth factor
// from a start rate, then bisection between the highest passing and the
// lowest failing rate. It drives any [Probe], so it can be tested against
// a simulated server.
//
// # Safety
//
// Load goes only to loopback addresses (127.0.0.0/8 and ::1) unless
// AllowRemote is set. [Resolve] refuses a literal non-loopback address
// without any lookup, and a host name when any of its addresses is not
// loopback; the dialer checks the address again before connect(2), so a
// refused address never receives a packet. Every step is bounded in time
// ([MaxDuration]) and requests ([MaxRequestsCap]).
//
// # Output
//
// [Result.Values] and [Result.Record] give the step as benchmark values
// (req/s, good-req/s, errors/op, p50-sec, p90-sec, p99-sec, p999-sec,
// svc-p99-sec), [Result.Percentiles] and [Result.Codes] the figures of a
// percentile table (package report writes it), and [Result.WriteHDRLog]
// writes both histograms in the HdrHistogram log format.
package load
