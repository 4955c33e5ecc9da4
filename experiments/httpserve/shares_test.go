package httpserve

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// synth builds a CPU profile from stacks written leaf first as
// ";"-separated function names, with a sample count each.
func synth(t testing.TB, stacks map[string]int64) []byte {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 5e6,
	}
	funcs := map[string]*profile.Function{}
	for stack, n := range stacks {
		var locs []*profile.Location
		for _, name := range strings.Split(stack, ";") {
			f := funcs[name]
			if f == nil {
				f = &profile.Function{ID: uint64(len(funcs) + 1), Name: name}
				funcs[name] = f
				p.Function = append(p.Function, f)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
			p.Location = append(p.Location, loc)
			locs = append(locs, loc)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{n, n * 5e6}})
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestShares(t *testing.T) {
	for _, tt := range []struct {
		name   string
		stacks map[string]int64
		own    int64 // samples outside the database engine; 0: all of them
		want   map[string]float64
	}{
		{
			name: "one of each",
			stacks: map[string]int64{
				"encoding/json.(*encodeState).marshal;encoding/json.Marshal;main.handler":                                   6,
				"runtime.nanotime;time.Now;orders.(*server).accessLog":                                                      1,
				"modernc.org/sqlite/lib.X;database/sql.(*DB).conn;database/sql.(*Stmt).connStmt;database/sql.(*Stmt).Query": 2,
				"syscall.write;net.(*conn).Write":                                                                           1,
			},
			want: map[string]float64{"cpu-json-share": 0.6, "cpu-clock-share": 0.1, "cpu-dbconn-share": 0.2, "cpu-db-share": 0},
		},
		{
			name: "query work of the embedded database is set apart",
			stacks: map[string]int64{
				"encoding/json.Marshal;main.handler":                                      3,
				"modernc.org/sqlite/lib._sqlite3VdbeExec;modernc.org/sqlite.(*conn).step": 4,
				"modernc.org/libc.Xmemcpy;database/sql.(*Stmt).QueryContext":              2,
				"modernc.org/sqlite/lib.X;database/sql.(*DB).conn":                        1,
				"main.other": 1,
			},
			own:  5,
			want: map[string]float64{"cpu-json-share": 0.6, "cpu-dbconn-share": 0.2, "cpu-db-share": 6.0 / 11},
		},
		{
			name: "a frame counts once per sample",
			stacks: map[string]int64{
				"time.Now;time.Now;time.Now": 1,
				"main.work":                  3,
			},
			want: map[string]float64{"cpu-clock-share": 0.25, "cpu-json-share": 0},
		},
		{
			name: "generated easyjson code",
			stacks: map[string]int64{
				"github.com/mailru/easyjson/jwriter.(*Writer).String;github.com/perflab/perflab/target/orders.easyjson120d1ca2EncodeGithubComPerflabPerflabTargetOrders": 1,
				"github.com/perflab/perflab/target/orders.Order.MarshalEasyJSON":                                                                                         1,
				"github.com/perflab/perflab/target/orders.(*Store).Get":                                                                                                  2,
			},
			want: map[string]float64{"cpu-json-share": 0.5},
		},
		{
			name: "other codecs",
			stacks: map[string]int64{
				"github.com/bytedance/sonic/internal/encoder.X": 1, "github.com/goccy/go-json.Marshal": 1,
				"github.com/json-iterator/go.(*Stream).X": 1, "github.com/segmentio/encoding/json.Marshal": 1,
				"github.com/go-json-experiment/json.Marshal": 1, "main.other": 5,
			},
			want: map[string]float64{"cpu-json-share": 0.5},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := Shares(synth(t, tt.stacks), Parts)
			if err != nil {
				t.Fatal(err)
			}
			var total int64
			for _, c := range tt.stacks {
				total += c
			}
			if tt.own != 0 {
				total = tt.own
			}
			if n != total {
				t.Errorf("samples %d, want %d", n, total)
			}
			for unit, want := range tt.want {
				if math.Abs(got[unit]-want) > 1e-9 {
					t.Errorf("%s = %g, want %g", unit, got[unit], want)
				}
			}
		})
	}
}

// TestSharesOfServiceProfile reads a CPU profile of the baseline service
// under load (testdata/baseline-cpu.pprof).
func TestSharesOfServiceProfile(t *testing.T) {
	data, err := os.ReadFile("testdata/baseline-cpu.pprof")
	if err != nil {
		t.Fatal(err)
	}
	got, n, err := Shares(data, Parts)
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("%d samples", n)
	}
	for _, unit := range append([]string{DBUnit}, units(Parts)...) {
		if v := got[unit]; v < 0 || v > 1 {
			t.Errorf("%s = %g", unit, v)
		}
	}
	// The baseline encodes with encoding/json, reads SQLite and logs with time.Now.
	for _, unit := range []string{"cpu-json-share", "cpu-db-share"} {
		if got[unit] == 0 {
			t.Errorf("%s is 0 in a profile of the baseline service", unit)
		}
	}
}

func TestSharesRejectsGarbage(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("not a profile"), {0x1f, 0x8b, 0, 0}} {
		if _, _, err := Shares(in, Parts); err == nil {
			t.Errorf("Shares(%q) accepted", in)
		}
	}
}

// FuzzShares: arbitrary bytes never panic, and any accepted profile gives
// shares between 0 and 1.
func FuzzShares(f *testing.F) {
	f.Add(synth(f, map[string]int64{"time.Now;main.x": 2, "main.y": 1}))
	if data, err := os.ReadFile("testdata/baseline-cpu.pprof"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _, err := Shares(data, Parts)
		if err != nil {
			return
		}
		for u, v := range got {
			if v < 0 || v > 1 || math.IsNaN(v) {
				t.Fatalf("%s = %g", u, v)
			}
		}
	})
}

func units(parts []Part) []string {
	var u []string
	for _, p := range parts {
		u = append(u, p.Unit)
	}
	return u
}
