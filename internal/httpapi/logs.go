package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"

	"github.com/taskgov/taskgov/internal/model"
)

// MaxLogBytes caps the bytes one GET /api/v1/tasks/{name}/logs sends: a
// task that wrote gigabytes costs a reader several requests, each holding
// a 32 KiB copy buffer and its connection for at most this much, never the
// whole log. The headers say where the part sent lies and whether more
// follows.
const MaxLogBytes = 8 << 20

// maxTailLines bounds ?tail=.
const maxTailLines = 100000

// The headers of a logs response (bytes counted from the start of the
// pod's log across runs).
const (
	headerLogStart = "Taskgov-Log-Start" // where the body starts
	headerLogEnd   = "Taskgov-Log-End"   // where it ends: the next ?offset= to read on
	headerLogSize  = "Taskgov-Log-Size"  // the log's size when it was read
	headerLogCut   = "Taskgov-Log-Truncated"
)

// logQuery is what a logs request asks for: the bytes from offset, or the
// last tail lines, at most limit bytes either way.
type logQuery struct {
	offset int64
	tail   int
	limit  int64
}

// parseLogQuery reads ?offset=, ?tail= and ?limitBytes=.
func parseLogQuery(q url.Values) (logQuery, error) {
	lq := logQuery{limit: MaxLogBytes}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return lq, &model.FieldError{Field: "offset", Problem: "must be a byte offset, 0 or more",
				Fix: "pass the " + headerLogEnd + " header of the previous response to read on, or leave it out to read from the start"}
		}
		lq.offset = n
	}
	if v := q.Get("tail"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxTailLines {
			return lq, &model.FieldError{Field: "tail", Problem: fmt.Sprintf("must be a number of lines from 1 to %d", maxTailLines),
				Fix: "pass ?tail=100 for the last 100 lines"}
		}
		if q.Has("offset") {
			return lq, &model.FieldError{Field: "tail", Problem: "cannot be combined with offset",
				Fix: "pass ?tail= for the last lines, or ?offset= to read from a byte on"}
		}
		lq.tail = n
	}
	if v := q.Get("limitBytes"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > MaxLogBytes {
			return lq, &model.FieldError{Field: "limitBytes", Problem: fmt.Sprintf("must be from 1 to %d", MaxLogBytes),
				Fix: "leave it out for the most one response sends"}
		}
		lq.limit = n
	}
	return lq, nil
}

// logSource is an open log whose size is known: a file, or a reader read
// into memory.
type logSource interface {
	io.ReaderAt
	Size() int64
}

type fileSource struct {
	io.ReaderAt
	size int64
}

func (f fileSource) Size() int64 { return f.size }

// openLogSource makes rc readable at any offset. A file is read in place
// (its size when opened bounds what is sent, though the task goes on
// writing); another reader is read whole, so an executor whose logs cannot
// be read at any offset returns a windowedLog instead.
func openLogSource(rc io.Reader) (logSource, error) {
	if f, ok := rc.(interface {
		io.ReaderAt
		Stat() (fs.FileInfo, error)
	}); ok {
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		return fileSource{f, st.Size()}, nil
	}
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(b), nil
}

// window chooses the bytes [start, end) to send; short says the tail
// asked for has more lines than the limit let it send.
func (lq logQuery) window(src logSource) (start, end int64, short bool, err error) {
	size := src.Size()
	switch {
	case lq.tail > 0:
		start, short, err = tailStart(src, size, lq.tail, lq.limit)
		if err != nil {
			return 0, 0, false, err
		}
	case lq.offset > size:
		return 0, 0, false, offsetPastEnd(size)
	default:
		start = lq.offset
	}
	return start, min(size, start+lq.limit), short, nil
}

// offsetPastEnd refuses an ?offset= past a log of size bytes.
func offsetPastEnd(size int64) error {
	return &model.FieldError{Field: "offset", Problem: fmt.Sprintf("is past the log's end (%d bytes)", size),
		Fix: "pass an offset up to the log's size (the " + headerLogEnd + " header of the previous response)"}
}

// tailStart finds where the last n lines of a log of size begin, reading
// backwards in blocks. It looks no further back than limit bytes before
// the end: if the lines start before that, the answer starts there
// (mid-line) and short is true.
func tailStart(src io.ReaderAt, size int64, n int, limit int64) (start int64, short bool, err error) {
	end := size
	if end > 0 {
		var last [1]byte
		if _, err := src.ReadAt(last[:], end-1); err != nil {
			return 0, false, err
		}
		if last[0] == '\n' {
			end-- // a log's final newline ends its last line, starts none
		}
	}
	floor := max(0, size-limit)
	buf := make([]byte, 64<<10)
	for pos := end; pos > floor; {
		k := min(int64(len(buf)), pos-floor)
		pos -= k
		if _, err := src.ReadAt(buf[:k], pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, false, err
		}
		for i := k - 1; i >= 0; i-- {
			if buf[i] == '\n' {
				if n--; n == 0 {
					return pos + i + 1, false, nil
				}
			}
		}
	}
	return floor, floor > 0, nil
}

// serveLog sends the window lq asks for, with the headers that place it;
// Taskgov-Log-Truncated says the log holds more of what was asked than
// was sent (more after the end, or, for a tail, more lines before).
func serveLog(w http.ResponseWriter, src logSource, lq logQuery) error {
	start, end, short, err := lq.window(src)
	if err != nil {
		return err
	}
	size := src.Size()
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.FormatInt(end-start, 10))
	h.Set(headerLogStart, strconv.FormatInt(start, 10))
	h.Set(headerLogEnd, strconv.FormatInt(end, 10))
	h.Set(headerLogSize, strconv.FormatInt(size, 10))
	if end < size || short {
		h.Set(headerLogCut, "true")
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, io.NewSectionReader(src, start, end-start))
	return nil
}

// windowedLog is a log that cannot be read at any offset but reads only
// the part asked for (Kubernetes: a pod's log through the API server).
type windowedLog interface {
	Window(context.Context, model.LogWindow) (model.LogPart, error)
}

// serveLogPart sends the part of wl that lq asks for. The placing headers
// are sent only when the log could tell them (model.LogPart: a tail from
// the Kubernetes API server says neither where it starts nor the log's
// size); Taskgov-Log-Truncated means what it means for a file. A reader
// that goes away (ctx, the request's) ends the read from the API server.
func serveLogPart(ctx context.Context, w http.ResponseWriter, wl windowedLog, lq logQuery) error {
	part, err := wl.Window(ctx, model.LogWindow{Offset: lq.offset, Tail: lq.tail, Limit: lq.limit})
	if err != nil {
		return err
	}
	if lq.tail == 0 && part.Size >= 0 && lq.offset > part.Size {
		return offsetPastEnd(part.Size)
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(part.Data)))
	for name, v := range map[string]int64{headerLogStart: part.Start, headerLogEnd: part.End, headerLogSize: part.Size} {
		if v >= 0 {
			h.Set(name, strconv.FormatInt(v, 10))
		}
	}
	if part.More {
		h.Set(headerLogCut, "true")
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(part.Data)
	return nil
}
