package httpapi

import (
	"bytes"
	"compress/flate"
	"strings"
	"sync"
)

// Event streams are gzip-compressed for clients that accept it (browsers'
// EventSource, Go's HTTP client, curl --compressed): JSON event frames
// shrink several times, and the bytes the kernel copies for each of
// 1,000 streams were most of their cost once a batch was one write (issue
// 14). The ring compresses each sealed batch once (ssehub.go), for every
// stream that reads it, so a batch must not refer to anything before it:
// each is a run of deflate blocks from a fresh compressor, ended by a sync
// flush (an empty stored block). Such runs, one after another behind one
// gzip header, are one valid deflate stream, so a stream that starts at
// any batch decodes. The gzip trailer is never sent: the stream ends when
// its connection closes, as it does without compression.

// gzipHeader starts every compressed stream: deflate, no name, no time,
// unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// deflate compresses b on its own, ending with a sync flush.
func deflate(b []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(b)/4 + 64)
	w := deflaters.Get().(*flate.Writer)
	w.Reset(&buf)
	_, _ = w.Write(b)
	_ = w.Flush()
	deflaters.Put(w)
	return buf.Bytes()
}

// gzipKeepalive is the keepalive comment, compressed once.
var gzipKeepalive = deflate([]byte(": keepalive\n\n"))

// acceptsGzip reports whether an Accept-Encoding header value accepts gzip
// (listed, or under *, with a q-value other than 0).
func acceptsGzip(header string) bool {
	gzip, star := -1, -1 // -1: not listed; 0: refused; 1: accepted
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		ok := 1
		for _, p := range strings.Split(params, ";") {
			if k, v, found := strings.Cut(strings.TrimSpace(p), "="); found && strings.EqualFold(k, "q") && isZeroQ(v) {
				ok = 0
			}
		}
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "gzip", "x-gzip":
			gzip = ok
		case "*":
			star = ok
		}
	}
	if gzip >= 0 {
		return gzip == 1
	}
	return star == 1
}

// isZeroQ: a q-value of 0 (0, 0., 0.0, 0.000).
func isZeroQ(v string) bool {
	v = strings.TrimSpace(v)
	return v != "" && strings.Trim(v, "0.") == "" && v[0] == '0'
}
