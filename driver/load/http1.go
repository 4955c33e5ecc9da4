package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Limits on what ReadResponse accepts from a server.
const (
	maxHeaderLine  = 16 << 10 // one status or header line, and the reader's buffer
	maxHeaderLines = 200      // header fields of one response (trailers included)
	maxBody        = 1 << 30  // body bytes of one response
	maxInterim     = 10       // 1xx responses before the final one
)

// Response is what the load generator keeps of one HTTP/1.1 response: its
// status, how many body bytes it carried, and whether the server will close
// the connection after it.
type Response struct {
	Status int
	Body   int64 // body bytes read and discarded (chunked framing excluded)
	Close  bool  // the connection cannot carry another request
}

// errMalformed wraps every protocol error of ReadResponse.
var errMalformed = errors.New("malformed HTTP/1.1 response")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// ReadResponse reads one HTTP/1.x response to a GET request from br and
// discards its body. It understands Content-Length, chunked transfer coding
// (with trailers), bodies delimited by the end of the connection, interim
// 1xx responses and the Connection header. Bodies of HEAD responses are not
// expected: pass head=true for those. br's buffer must be at least
// 16 KiB (see NewReader): a longer status or header line is an error.
func ReadResponse(br *bufio.Reader, head bool) (Response, error) {
	for interim := 0; ; interim++ {
		r, err := readOne(br, head)
		if err != nil {
			return r, err
		}
		// 1xx responses other than 101 precede the real one; 101 would switch
		// protocols, which a load generator never asks for.
		if r.Status >= 100 && r.Status < 200 && r.Status != 101 {
			if interim >= maxInterim {
				return r, malformed("more than %d interim 1xx responses", maxInterim)
			}
			continue
		}
		return r, nil
	}
}

// NewReader returns a reader whose buffer is large enough for ReadResponse.
func NewReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, maxHeaderLine) }

func readOne(br *bufio.Reader, head bool) (Response, error) {
	var r Response
	line, err := readLine(br)
	if err != nil {
		return r, err
	}
	proto, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok {
		return r, malformed("status line %q has no status code", clip(line))
	}
	var http10 bool
	switch string(proto) {
	case "HTTP/1.1":
	case "HTTP/1.0":
		http10 = true
	default:
		return r, malformed("status line %q is not HTTP/1.0 or HTTP/1.1", clip(line))
	}
	code, _, _ := bytes.Cut(rest, []byte(" "))
	if len(code) != 3 {
		return r, malformed("status code %q is not three digits", clip(code))
	}
	for _, c := range code {
		if c < '0' || c > '9' {
			return r, malformed("status code %q is not three digits", clip(code))
		}
	}
	r.Status = int(code[0]-'0')*100 + int(code[1]-'0')*10 + int(code[2]-'0')
	if r.Status < 100 {
		return r, malformed("status code %d is below 100", r.Status)
	}

	length := int64(-1)
	chunked := false
	keepAlive := false
	for n := 0; ; n++ {
		line, err := readLine(br)
		if err != nil {
			return r, unexpectedEOF(err)
		}
		if len(line) == 0 {
			break
		}
		if n >= maxHeaderLines {
			return r, malformed("more than %d header lines", maxHeaderLines)
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 {
			return r, malformed("header line %q has no name", clip(line))
		}
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqualFold(name, "content-length"):
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 {
				return r, malformed("Content-Length %q is not a non-negative integer", clip(value))
			}
			if length >= 0 && n != length {
				return r, malformed("conflicting Content-Length headers %d and %d", length, n)
			}
			length = n
		case asciiEqualFold(name, "transfer-encoding"):
			codings := strings.Split(string(value), ",")
			last := strings.TrimSpace(codings[len(codings)-1])
			if !strings.EqualFold(last, "chunked") {
				return r, malformed("Transfer-Encoding %q does not end in chunked", clip(value))
			}
			chunked = true
		case asciiEqualFold(name, "connection"):
			for _, tok := range strings.Split(string(value), ",") {
				switch strings.ToLower(strings.TrimSpace(tok)) {
				case "close":
					r.Close = true
				case "keep-alive":
					keepAlive = true
				}
			}
		}
	}
	if http10 && !keepAlive {
		r.Close = true
	}
	if head || r.Status == 204 || r.Status == 304 || r.Status < 200 {
		return r, nil
	}
	switch {
	case chunked:
		r.Body, err = discardChunked(br)
	case length >= 0:
		if length > maxBody {
			return r, malformed("Content-Length %d exceeds the %d-byte limit", length, maxBody)
		}
		var n int
		n, err = br.Discard(int(length))
		r.Body = int64(n)
		err = unexpectedEOF(err)
	default:
		// No framing: the body runs to the end of the connection.
		r.Close = true
		r.Body, err = io.Copy(io.Discard, io.LimitReader(br, maxBody+1))
		if err == nil && r.Body > maxBody {
			err = malformed("body exceeds the %d-byte limit", maxBody)
		}
	}
	return r, err
}

// discardChunked reads a chunked body and its trailers.
func discardChunked(br *bufio.Reader) (int64, error) {
	var total int64
	for {
		line, err := readLine(br)
		if err != nil {
			return total, unexpectedEOF(err)
		}
		size, _, _ := bytes.Cut(line, []byte(";"))
		size = bytes.TrimSpace(size)
		n, err := strconv.ParseInt(string(size), 16, 64)
		if err != nil || n < 0 || len(size) == 0 {
			return total, malformed("chunk size %q is not hexadecimal", clip(line))
		}
		if n == 0 {
			break
		}
		if total+n > maxBody {
			return total, malformed("chunked body exceeds the %d-byte limit", maxBody)
		}
		d, err := br.Discard(int(n))
		total += int64(d)
		if err != nil {
			return total, unexpectedEOF(err)
		}
		crlf, err := readLine(br)
		if err != nil {
			return total, unexpectedEOF(err)
		}
		if len(crlf) != 0 {
			return total, malformed("chunk of %d bytes is not followed by CRLF", n)
		}
	}
	for n := 0; ; n++ {
		line, err := readLine(br)
		if err != nil {
			return total, unexpectedEOF(err)
		}
		if len(line) == 0 {
			return total, nil
		}
		if n >= maxHeaderLines {
			return total, malformed("more than %d trailer lines", maxHeaderLines)
		}
	}
}

// readLine returns one line without its CRLF (or bare LF). The slice is
// valid until the next read from br.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, malformed("a line is longer than %d bytes", maxHeaderLine)
		}
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func asciiEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// clip shortens outside input for error messages.
func clip(b []byte) string {
	const n = 64
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// BuildRequest returns the bytes of an HTTP/1.1 request for u with the
// given method (GET or HEAD) and extra header fields. The request asks for
// a persistent connection and carries no body.
func BuildRequest(method string, u *url.URL, header http.Header) ([]byte, error) {
	if method != http.MethodGet && method != http.MethodHead {
		return nil, fmt.Errorf("method %q: the load generator sends GET or HEAD requests only", method)
	}
	var b bytes.Buffer
	b.WriteString(method)
	b.WriteByte(' ')
	b.WriteString(u.RequestURI())
	b.WriteString(" HTTP/1.1\r\nHost: ")
	b.WriteString(u.Host)
	b.WriteString("\r\n")
	keys := make([]string, 0, len(header))
	for k := range header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	hasUA := false
	for _, k := range keys {
		if !validHeaderName(k) {
			return nil, fmt.Errorf("header name %q is not a valid HTTP token", k)
		}
		if strings.EqualFold(k, "host") || strings.EqualFold(k, "content-length") || strings.EqualFold(k, "transfer-encoding") {
			return nil, fmt.Errorf("header %q is set by the load generator; leave it out", k)
		}
		if strings.EqualFold(k, "user-agent") {
			hasUA = true
		}
		for _, v := range header[k] {
			if !validHeaderValue(v) {
				return nil, fmt.Errorf("header %q has a value with a line break or another control character", k)
			}
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(v)
			b.WriteString("\r\n")
		}
	}
	if !hasUA {
		b.WriteString("User-Agent: perflab-load\r\n")
	}
	b.WriteString("\r\n")
	return b.Bytes(), nil
}

// validHeaderValue accepts visible characters, spaces, tabs and bytes of
// UTF-8 sequences: no line breaks or other control characters.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
