package load

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// fakeResolver answers from a table and records every lookup; it never
// touches the network.
type fakeResolver struct {
	hosts   map[string][]string
	lookups []string
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.lookups = append(r.lookups, host)
	addrs, ok := r.hosts[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func TestIsLoopback(t *testing.T) {
	for _, tt := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true}, {"127.255.255.254", true}, {"127.1.2.3", true},
		{"::1", true}, {"::ffff:127.0.0.1", true},
		{"10.0.0.1", false}, {"0.0.0.0", false}, {"::", false}, {"128.0.0.1", false},
		{"192.168.1.1", false}, {"169.254.1.1", false}, {"fe80::1", false}, {"::ffff:10.0.0.1", false},
		{"8.8.8.8", false}, {"2001:db8::1", false},
	} {
		if got := IsLoopback(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("IsLoopback(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	r := &fakeResolver{hosts: map[string][]string{
		"localhost":  {"127.0.0.1", "::1"},
		"lo-only":    {"127.0.0.2"},
		"mixed":      {"127.0.0.1", "10.0.0.7"},
		"remote.dev": {"203.0.113.9"},
	}}
	for _, tt := range []struct {
		url, wantErr string
		allow        bool
		wantAddrs    []string
		wantLookup   bool
	}{
		{url: "http://127.0.0.1:8080/x", wantAddrs: []string{"127.0.0.1:8080"}},
		{url: "http://127.0.0.1/", wantAddrs: []string{"127.0.0.1:80"}},
		{url: "http://[::1]:9000/", wantAddrs: []string{"[::1]:9000"}},
		{url: "http://[::ffff:127.0.0.1]:9000/", wantAddrs: []string{"127.0.0.1:9000"}},
		{url: "http://localhost:8080/", wantAddrs: []string{"127.0.0.1:8080", "[::1]:8080"}, wantLookup: true},
		{url: "http://lo-only:1/", wantAddrs: []string{"127.0.0.2:1"}, wantLookup: true},
		{url: "http://10.0.0.1/", wantErr: "refusing to send load to 10.0.0.1"},
		{url: "http://0.0.0.0:80/", wantErr: "not a loopback"},
		{url: "http://[2001:db8::1]/", wantErr: "not a loopback"},
		{url: "http://mixed:80/", wantErr: "resolves to 10.0.0.7", wantLookup: true},
		{url: "http://remote.dev/", wantErr: "not a loopback", wantLookup: true},
		{url: "http://remote.dev/", allow: true, wantAddrs: []string{"203.0.113.9:80"}, wantLookup: true},
		{url: "http://10.0.0.1:81/", allow: true, wantAddrs: []string{"10.0.0.1:81"}},
		{url: "http://nowhere.invalid/", wantErr: "looking up", wantLookup: true},
	} {
		t.Run(tt.url, func(t *testing.T) {
			r.lookups = nil
			u, err := ParseURL(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Resolve(context.Background(), u, tt.allow, r)
			if (len(r.lookups) > 0) != tt.wantLookup {
				t.Errorf("lookups %v, want lookup %v", r.lookups, tt.wantLookup)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				if strings.Contains(tt.wantErr, "loopback") && !errors.Is(err, ErrNotLoopback) {
					t.Errorf("err %v does not wrap ErrNotLoopback", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var addrs []string
			for _, a := range got.Addrs {
				addrs = append(addrs, a.String())
			}
			if strings.Join(addrs, " ") != strings.Join(tt.wantAddrs, " ") {
				t.Fatalf("addrs %v, want %v", addrs, tt.wantAddrs)
			}
		})
	}
}

func TestParseURL(t *testing.T) {
	for _, tt := range []struct{ in, wantErr, wantPath string }{
		{in: "http://127.0.0.1:8080", wantPath: "/"},
		{in: "http://127.0.0.1:8080/a/b?c=d", wantPath: "/a/b"},
		{in: "", wantErr: "empty"},
		{in: "https://127.0.0.1/", wantErr: "https is not supported"},
		{in: "ftp://127.0.0.1/", wantErr: "scheme"},
		{in: "127.0.0.1:8080", wantErr: "scheme"},
		{in: "http:///path", wantErr: "no host"},
		{in: "http://user:pw@127.0.0.1/", wantErr: "user information"},
		{in: "http://127.0.0.1/#frag", wantErr: "fragment"},
		{in: "http://127.0.0.1:0/", wantErr: "port"},
		{in: "http://127.0.0.1:99999/", wantErr: "port"},
		{in: "http://[::1/", wantErr: "target URL"},
	} {
		u, err := ParseURL(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseURL(%q) err = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || u.Path != tt.wantPath {
			t.Errorf("ParseURL(%q) = %v, %v; want path %q", tt.in, u, err, tt.wantPath)
		}
	}
}

// FuzzParseURL: no input panics, and whatever ParseURL accepts, Resolve
// refuses unless every address it would connect to is loopback (the
// resolver used here answers nothing, so names are refused too).
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/x", "http://10.0.0.1/", "http://[::1]/", "http://localhost/",
		"http://[::ffff:10.0.0.1]/", "http://127.0.0.1:0/", "https://x/", "http://0x7f.1/", "http://2130706433/", "http://[fe80::1%25lo]/"} {
		f.Add(s)
	}
	r := &fakeResolver{}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURL(s)
		if err != nil {
			return
		}
		tg, err := Resolve(context.Background(), u, false, r)
		if err != nil {
			return
		}
		for _, a := range tg.Addrs {
			if !IsLoopback(a.Addr()) {
				t.Fatalf("%q resolved to non-loopback %s", s, a)
			}
		}
	})
}

func TestLoopbackControl(t *testing.T) {
	for _, tt := range []struct {
		addr string
		ok   bool
	}{{"127.0.0.1:80", true}, {"[::1]:80", true}, {"10.0.0.1:80", false}, {"[2001:db8::1]:443", false}, {"garbage", false}} {
		err := loopbackControl("tcp", tt.addr, nil)
		if (err == nil) != tt.ok {
			t.Errorf("loopbackControl(%s) = %v, want ok %v", tt.addr, err, tt.ok)
		}
	}
}

// TestRunRefusesRemote: a step whose target holds a non-loopback address
// (as if Resolve had been bypassed) fails before dialing.
func TestRunRefusesRemote(t *testing.T) {
	u, _ := ParseURL("http://10.0.0.1/")
	tg := &Target{URL: u, Addrs: []netip.AddrPort{netip.MustParseAddrPort("10.0.0.1:80")}}
	start := time.Now()
	_, err := Run(context.Background(), Step{Target: tg, Rate: 10, Duration: time.Second})
	if !errors.Is(err, ErrNotLoopback) {
		t.Fatalf("Run err = %v, want ErrNotLoopback", err)
	}
	if time.Since(start) > 100*time.Millisecond {
		t.Fatalf("refusal took %v: it must come before any connection attempt", time.Since(start))
	}
}

func TestParseRate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1000", 1000, true}, {"2.5k", 2500, true}, {"50k/s", 50000, true}, {"1M rps", 1e6, true},
		{" 10 ", 10, true}, {"0.5", 0.5, true}, {"1e3", 1000, true},
		{"", 0, false}, {"0", 0, false}, {"-5", 0, false}, {"abc", 0, false}, {"NaN", 0, false},
		{"inf", 0, false}, {"1e400", 0, false}, {"20M", 0, false}, {"0x10", 0, false}, {"1_000", 0, false},
	} {
		got, err := ParseRate(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseRate(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"1000", "2.5k", "50k/s", "1M rps", "-1", "NaN", "1e400", "0x1p3", "kk"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		if err == nil && !(v > 0 && v <= MaxRate) {
			t.Fatalf("ParseRate(%q) = %v, outside (0, %d]", s, v, MaxRate)
		}
	})
}

func TestParseDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"5s", 5 * time.Second, true}, {"500ms", 500 * time.Millisecond, true}, {"30m", 30 * time.Minute, true},
		{"", 0, false}, {"0s", 0, false}, {"-1s", 0, false}, {"31m", 0, false}, {"5", 0, false}, {"1h", 0, false},
	} {
		got, err := ParseDuration(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"5s", "500ms", "-1s", "99999h", "1.5m", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && !(d > 0 && d <= MaxDuration) {
			t.Fatalf("ParseDuration(%q) = %v, outside (0, %v]", s, d, MaxDuration)
		}
	})
}
