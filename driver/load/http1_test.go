package load

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var responseTests = []struct {
	name    string
	in      string
	head    bool
	want    []Response // responses read in turn from in
	wantErr string     // error of the read after want
}{
	{
		name: "content-length",
		in:   "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello",
		want: []Response{{Status: 200, Body: 5}},
	},
	{
		name: "two keep-alive responses",
		in:   "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiHTTP/1.1 404 Not Found\r\ncontent-length: 3\r\n\r\nno!",
		want: []Response{{Status: 200, Body: 2}, {Status: 404, Body: 3}},
	},
	{
		name: "chunked with extension and trailer",
		in:   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: yes\r\n\r\n",
		want: []Response{{Status: 200, Body: 9}},
	},
	{
		name: "connection close",
		in:   "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
		want: []Response{{Status: 503, Close: true}},
	},
	{
		name: "body until EOF",
		in:   "HTTP/1.1 200 OK\r\n\r\nall of this",
		want: []Response{{Status: 200, Body: 11, Close: true}},
	},
	{
		name: "http/1.0 closes by default",
		in:   "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx",
		want: []Response{{Status: 200, Body: 1, Close: true}},
	},
	{
		name: "http/1.0 keep-alive",
		in:   "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx",
		want: []Response{{Status: 200, Body: 1}},
	},
	{
		name: "interim 100 then 200",
		in:   "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		want: []Response{{Status: 200, Body: 2}},
	},
	{
		name: "204 has no body",
		in:   "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		want: []Response{{Status: 204}, {Status: 200}},
	},
	{
		name: "HEAD response ignores length",
		in:   "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n",
		head: true,
		want: []Response{{Status: 200}},
	},
	{
		name: "bare LF line endings",
		in:   "HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
		want: []Response{{Status: 200, Body: 2}},
	},
	{name: "empty", in: "", wantErr: "EOF"},
	{name: "truncated headers", in: "HTTP/1.1 200 OK\r\nContent-Len", wantErr: "unexpected EOF"},
	{name: "truncated body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", wantErr: "unexpected EOF"},
	{name: "not http", in: "SSH-2.0-OpenSSH_9.0\r\n", wantErr: "no status code"},
	{name: "other protocol", in: "HTTP/2.0 200 OK\r\n\r\n", wantErr: "not HTTP/1.0 or HTTP/1.1"},
	{name: "bad status", in: "HTTP/1.1 2x0 OK\r\n\r\n", wantErr: "three digits"},
	{name: "bad length", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", wantErr: "non-negative"},
	{name: "conflicting lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", wantErr: "conflicting"},
	{name: "bad chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", wantErr: "hexadecimal"},
	{name: "chunk without CRLF", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokX\r\n0\r\n\r\n", wantErr: "CRLF"},
	{name: "header without colon", in: "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", wantErr: "no name"},
	{name: "gzip-only transfer coding", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", wantErr: "chunked"},
	{name: "huge length", in: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", wantErr: "limit"},
	{name: "header line too long", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 20000) + "\r\n\r\n", wantErr: "longer than"},
}

func TestReadResponse(t *testing.T) {
	for _, tt := range responseTests {
		t.Run(tt.name, func(t *testing.T) {
			br := NewReader(strings.NewReader(tt.in))
			for i, want := range tt.want {
				got, err := ReadResponse(br, tt.head)
				if err != nil {
					t.Fatalf("response %d: %v", i, err)
				}
				if got != want {
					t.Fatalf("response %d = %+v, want %+v", i, got, want)
				}
			}
			if tt.wantErr == "" {
				if _, err := ReadResponse(br, tt.head); !errors.Is(err, io.EOF) {
					t.Fatalf("after the last response: err = %v, want EOF", err)
				}
				return
			}
			_, err := ReadResponse(br, tt.head)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestReadResponseFiles reads captured responses from testdata/responses:
// every file holds one or more complete responses and must parse to the
// end without error.
func TestReadResponseFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/responses/*.http")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/responses/*.http files (err %v)", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			br := NewReader(strings.NewReader(string(data)))
			n := 0
			for {
				r, err := ReadResponse(br, false)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("response %d: %v", n+1, err)
				}
				if r.Status != 200 || r.Body == 0 {
					t.Fatalf("response %d = %+v, want a 200 with a body", n+1, r)
				}
				n++
			}
			if n == 0 {
				t.Fatal("no response read")
			}
		})
	}
}

// FuzzReadResponse feeds arbitrary bytes to the response reader: it must
// return (an error or a response) without panicking or reading past its
// limits.
func FuzzReadResponse(f *testing.F) {
	for _, tt := range responseTests {
		f.Add([]byte(tt.in), tt.head)
	}
	if files, _ := filepath.Glob("testdata/responses/*.http"); len(files) > 0 {
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data, false)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, head bool) {
		br := NewReader(strings.NewReader(string(data)))
		for i := 0; i < 100; i++ {
			r, err := ReadResponse(br, head)
			if err != nil {
				return
			}
			if r.Body < 0 || r.Body > int64(len(data)) {
				t.Fatalf("body of %d bytes from %d bytes of input", r.Body, len(data))
			}
			if r.Status < 100 || r.Status > 999 {
				t.Fatalf("status %d", r.Status)
			}
		}
	})
}

func TestBuildRequest(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:8080/order/42?x=1")
	got, err := BuildRequest(http.MethodGet, u, http.Header{"Authorization": {"Bearer t"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "GET /order/42?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Bearer t\r\nUser-Agent: perflab-load\r\n\r\n"
	if string(got) != want {
		t.Fatalf("request:\n%q\nwant\n%q", got, want)
	}
	// The request parses as HTTP with the standard library.
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(string(got))))
	if err != nil || req.Host != "127.0.0.1:8080" || req.URL.Path != "/order/42" {
		t.Fatalf("net/http reads %+v, %v", req, err)
	}
	for _, bad := range []http.Header{
		{"Bad Name": {"x"}},
		{"X": {"a\r\nInjected: yes"}},
		{"Host": {"other"}},
		{"Content-Length": {"3"}},
	} {
		if _, err := BuildRequest(http.MethodGet, u, bad); err == nil {
			t.Errorf("header %v accepted", bad)
		}
	}
	if _, err := BuildRequest(http.MethodPost, u, nil); err == nil {
		t.Error("POST accepted")
	}
}

// FuzzBuildRequest: whatever header a user passes, the request is either
// refused or parses as exactly one GET request carrying that header.
func FuzzBuildRequest(f *testing.F) {
	f.Add("X-Test", "yes")
	f.Add("Authorization", "Bearer perflab")
	f.Add("X", "a\r\nInjected: 1")
	f.Add("Bad Name", "x")
	f.Fuzz(func(t *testing.T, name, value string) {
		u, _ := url.Parse("http://127.0.0.1:8080/p")
		req, err := BuildRequest(http.MethodGet, u, http.Header{name: {value}})
		if err != nil {
			return
		}
		br := bufio.NewReader(strings.NewReader(string(req)))
		r, err := http.ReadRequest(br)
		if err != nil {
			t.Fatalf("request %q does not parse: %v", req, err)
		}
		if _, err := br.Peek(1); err == nil {
			t.Fatalf("request %q carries more than one request", req)
		}
		if got := r.Header.Get(name); got != strings.Trim(value, " \t") && !strings.EqualFold(name, "user-agent") {
			t.Fatalf("header %q = %q, want %q", name, got, value)
		}
	})
}
