package httpserve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/driver/load"
	"github.com/perflab/perflab/target/orders"
)

// TestServerChild starts the service as a child process the way the
// benchmark does, loads it briefly, reads its metrics and stops it.
func TestServerChild(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service, which seeds its database on first use")
	}
	srv := startServer(t, "optimized", nil, false)
	tg, reqs, err := srv.orderRequests(16)
	if err != nil {
		t.Fatal(err)
	}
	if !load.IsLoopback(tg.Addrs[0].Addr()) {
		t.Fatalf("the service listens on %s", tg.Addrs[0])
	}
	res, err := load.Run(context.Background(), load.Step{Target: tg, Requests: reqs, Duration: 200 * time.Millisecond, Conns: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status[200] == 0 || res.Status[200] != res.Responses {
		t.Fatalf("status codes %v", res.Status)
	}
	m, err := srv.metrics()
	if err != nil {
		t.Fatal(err)
	}
	if m.Profile != "optimized" || m.Requests < res.Responses || m.CPUSeconds <= 0 || m.AllocObjs == 0 {
		t.Fatalf("metrics %+v after %d responses", m, res.Responses)
	}
	c := &cell{srv: srv}
	doc, err := c.fetch("/doc/easyjson")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := orders.Codecs[0].Marshal(&orders.Order{})
	if err := orders.SameJSON(doc, want); err == nil || !strings.Contains(string(doc), `"items"`) {
		t.Fatalf("/doc/easyjson served %s", doc)
	}
	if err := srv.setGuard(100); err != nil {
		t.Fatal(err)
	}
	srv.stop()
	select {
	case <-srv.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the service outlived stop")
	}
	if _, err := srv.metrics(); err == nil {
		t.Fatal("the service still answers after stop")
	}
}
