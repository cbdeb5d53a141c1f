package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/taskgov/taskgov/internal/model"
)

// logTimeout bounds one read of a rank's logs through the API server.
const logTimeout = 5 * time.Minute

// podLogs is one rank's log across its pods (runs, oldest first), as Logs
// returns it: each pod's log from the API server after a line naming the
// pod. The API server cannot seek in a log by bytes: it sends a pod's log
// from its start (at most limitBytes of it), its last tailLines lines, or
// its lines stamped from a second on (sinceTime), which the executor's
// logIndex ties to bytes. Window reads only what one response may send,
// holding at most that much; Read streams the whole log, one pod at a
// time.
type podLogs struct {
	client kubernetes.Interface
	pods   []*corev1.Pod
	index  *logIndex // the executor's; nil reads every offset from the log's start

	// Read's state: the pod being read and what is left of it.
	next int
	cur  io.Reader
	body io.ReadCloser
}

func newPodLogs(client kubernetes.Interface, pods []*corev1.Pod, index *logIndex) *podLogs {
	return &podLogs{client: client, pods: pods, index: index}
}

// header is the line before a pod's log.
func header(p *corev1.Pod) string {
	return fmt.Sprintf("=== taskgov: pod %s on node %s ===\n", p.Name, p.Spec.NodeName)
}

// open streams a pod's log with opts. A log the API server cannot give
// (the pod is gone, its kubelet does not answer) reads as a line that says
// so, as it always has.
func (l *podLogs) open(ctx context.Context, p *corev1.Pod, opts *corev1.PodLogOptions) io.ReadCloser {
	rc, _ := l.openOK(ctx, p, opts)
	return rc
}

// openOK is open, and says whether the API server gave the log.
func (l *podLogs) openOK(ctx context.Context, p *corev1.Pod, opts *corev1.PodLogOptions) (io.ReadCloser, bool) {
	rc, err := l.client.CoreV1().Pods(p.Namespace).GetLogs(p.Name, opts).Stream(ctx)
	if err != nil {
		return io.NopCloser(bytes.NewBufferString(fmt.Sprintf("(logs unavailable: %v)\n", err))), false
	}
	return rc, true
}

// Read implements io.Reader: the pods' logs in turn, each after its header.
func (l *podLogs) Read(b []byte) (int, error) {
	for {
		if l.cur != nil {
			n, err := l.cur.Read(b)
			if n > 0 || (err != nil && !errors.Is(err, io.EOF)) {
				return n, err
			}
			if err == nil {
				continue
			}
			l.closeBody()
			l.cur = nil
		}
		if l.next == len(l.pods) {
			return 0, io.EOF
		}
		p := l.pods[l.next]
		l.next++
		l.body = l.open(context.Background(), p, &corev1.PodLogOptions{})
		l.cur = io.MultiReader(bytes.NewBufferString(header(p)), l.body)
	}
}

func (l *podLogs) closeBody() {
	if l.body != nil {
		_ = l.body.Close()
		l.body = nil
	}
}

// Close ends a Read in progress.
func (l *podLogs) Close() error {
	l.closeBody()
	return nil
}

// Window reads the part w asks for (httpapi's ?offset=, ?tail=,
// ?limitBytes=), holding at most w.Limit bytes (and a 32 KiB copy buffer).
// It gives up, closing its stream from the API server, when ctx ends (the
// reader went away) or after logTimeout.
func (l *podLogs) Window(ctx context.Context, w model.LogWindow) (model.LogPart, error) {
	ctx, cancel := context.WithTimeout(ctx, logTimeout)
	defer cancel()
	if w.Tail > 0 {
		return l.tail(ctx, w.Tail, w.Limit)
	}
	return l.from(ctx, w.Offset, w.Limit)
}

// from reads the bytes [offset, offset+limit) and one more, to tell
// whether more follows. Each pod is read from where the part starts in it
// (feedPod); a finished pod whose log's size is known and ends before the
// part is not read at all. Start and End are exact; Size is known only
// when the part reaches the log's end.
func (l *podLogs) from(ctx context.Context, offset, limit int64) (model.LogPart, error) {
	c := &cursor{offset: offset, want: limit + 1, out: make([]byte, 0, min(limit+1, 64<<10))}
	for _, p := range l.pods {
		if c.feed([]byte(header(p))) {
			break
		}
		base := c.pos
		if size := l.index.size(p.UID); size >= 0 && offset >= base+size {
			c.pos = base + size
			continue
		}
		if err := l.feedPod(ctx, p, c, base); err != nil {
			return model.LogPart{}, err
		}
		if c.full() {
			break
		}
	}
	if c.full() {
		return model.LogPart{Data: c.out[:limit], Start: offset, End: offset + limit, Size: -1, More: true}, nil
	}
	if c.pos < offset { // the caller says the offset is past the end
		return model.LogPart{Start: -1, End: -1, Size: c.pos}, nil
	}
	return model.LogPart{Data: c.out, Start: offset, End: c.pos, Size: c.pos}, nil
}

// feedPod feeds c what it wants of pod p's log, which starts at byte base
// of the whole log: from a mark before the part when one fits
// (feedStamped), else from the log's start, the bytes before the part read
// and dropped. It leaves c.pos at the pod log's end unless c is full.
func (l *podLogs) feedPod(ctx context.Context, p *corev1.Pod, c *cursor, base int64) error {
	if c.offset > base && l.index != nil {
		if ok, err := l.feedStamped(ctx, p, c, base); err != nil || ok {
			return err
		}
	}
	need := c.want - int64(len(c.out))
	if skip := max(c.offset, c.pos) - base; skip > math.MaxInt64-need {
		need = math.MaxInt64 // a hostile offset: read the pod's whole log, no more
	} else {
		need += skip
	}
	rc, ok := l.openOK(ctx, p, &corev1.PodLogOptions{LimitBytes: &need})
	w := &placed{c: c, pos: base}
	_, err := io.Copy(w, rc)
	_ = rc.Close()
	if err != nil && !errors.Is(err, errFull) {
		return readError(ctx, p, err)
	}
	if ok && !c.full() && podFinished(p) {
		l.index.setSize(p.UID, w.pos-base)
	}
	return nil
}

// placed feeds a cursor a stream that starts at byte pos of the log.
type placed struct {
	c   *cursor
	pos int64
}

// Write implements io.Writer for io.Copy; it fails with errFull once the
// cursor is full.
func (w *placed) Write(b []byte) (int, error) {
	full := w.c.feedAt(w.pos, b)
	w.pos += int64(len(b))
	if full {
		return len(b), errFull
	}
	return len(b), nil
}

// errFull stops a copy into a cursor that holds all it wants.
var errFull = errors.New("kube: log part complete")

// cursor keeps the bytes of a stream from offset on, up to want of them;
// pos counts the bytes it was fed.
type cursor struct {
	offset, pos int64
	want        int64
	out         []byte
}

func (c *cursor) full() bool { return int64(len(c.out)) == c.want }

// feed takes b and reports whether the cursor is full.
func (c *cursor) feed(b []byte) bool {
	if skip := c.offset - c.pos; skip > 0 {
		n := min(skip, int64(len(b)))
		c.pos += n
		b = b[n:]
	}
	b = b[:min(int64(len(b)), c.want-int64(len(c.out)))]
	c.out = append(c.out, b...)
	c.pos += int64(len(b))
	return c.full()
}

// feedAt feeds b, which starts at byte pos of the stream: the part of it
// before c.pos was fed before; a pos past c.pos skips bytes the caller
// knows lie before the offset. It reports whether the cursor is full.
func (c *cursor) feedAt(pos int64, b []byte) bool {
	if d := c.pos - pos; d > 0 {
		b = b[min(d, int64(len(b))):]
	} else {
		c.pos = pos
	}
	return c.feed(b)
}

// Write implements io.Writer for io.Copy; it fails with errFull once full.
func (c *cursor) Write(b []byte) (int, error) {
	if c.feed(b) {
		return len(b), errFull
	}
	return len(b), nil
}

// tail reads the last n lines, at most limit bytes of them (the last limit
// bytes, from mid-line, when they are more: More is then true), asking
// each pod, newest first, for tailLines of the lines still missing: the
// API server sends those lines and nothing before them. A pod's header is
// a line of the log. The API server does not say where its tail starts, so
// Start, End and Size are -1 unless the part holds the whole log.
func (l *podLogs) tail(ctx context.Context, n int, limit int64) (model.LogPart, error) {
	t := &tailParts{room: limit}
	for i := len(l.pods) - 1; i >= 0; i-- {
		p := l.pods[i]
		ask := int64(n)
		rc := l.open(ctx, p, &corev1.PodLogOptions{TailLines: &ask})
		r := newRing(t.room)
		_, err := io.Copy(r, rc)
		_ = rc.Close()
		if err != nil {
			return model.LogPart{}, fmt.Errorf("reading the log of pod %s: %w", p.Name, err)
		}
		if !t.add(r.bytes(), r.dropped) || r.lines() >= n {
			return t.part(false), nil
		}
		n -= r.lines() // the pod's whole log, fewer lines than asked
		if n == 0 || !t.add([]byte(header(p)), false) {
			return t.part(false), nil
		}
		if n--; n == 0 {
			return t.part(i == 0), nil
		}
		if t.room == 0 && i > 0 {
			t.short = true // more lines before, and no room for them
			return t.part(false), nil
		}
	}
	return t.part(true), nil
}

// tailParts gathers a tail's parts, newest first, in room bytes.
type tailParts struct {
	parts [][]byte
	room  int64
	short bool
}

// add puts b before what is kept, as much as there is room for; it
// reports false when the tail is complete (b was cut, or was already).
func (t *tailParts) add(b []byte, cut bool) bool {
	if int64(len(b)) > t.room {
		b, cut = b[int64(len(b))-t.room:], true
	}
	t.parts = append(t.parts, b)
	t.room -= int64(len(b))
	t.short = t.short || cut
	return !cut
}

// part is the tail in log order; whole says it starts at the log's start.
func (t *tailParts) part(whole bool) model.LogPart {
	size := 0
	for _, b := range t.parts {
		size += len(b)
	}
	out := make([]byte, 0, size)
	for i := len(t.parts) - 1; i >= 0; i-- {
		out = append(out, t.parts[i]...)
	}
	part := model.LogPart{Data: out, Start: -1, End: -1, Size: -1, More: t.short}
	if whole && !t.short {
		part.Start, part.End, part.Size = 0, int64(len(out)), int64(len(out))
	}
	return part
}

// ring keeps the last max bytes written to it, and counts the lines of
// all of them (a last line without its newline counts).
type ring struct {
	max      int64
	buf      []byte // grows to max, then wraps
	start    int    // the oldest kept byte, once buf is full
	dropped  bool   // bytes were written that it no longer holds
	newlines int
	last     byte
	n        int64 // bytes written
}

func newRing(max int64) *ring { return &ring{max: max} }

// Write implements io.Writer; it never fails.
func (r *ring) Write(b []byte) (int, error) {
	r.n += int64(len(b))
	if len(b) > 0 {
		r.last = b[len(b)-1]
	}
	r.newlines += bytes.Count(b, []byte{'\n'})
	w := b
	if int64(len(w)) >= r.max { // only its last max bytes can be kept
		r.dropped = r.dropped || r.n > r.max
		r.buf = append(r.buf[:0], w[int64(len(w))-r.max:]...)
		r.start = 0
		return len(b), nil
	}
	if room := r.max - int64(len(r.buf)); room > 0 {
		k := min(room, int64(len(w)))
		r.buf = append(r.buf, w[:k]...)
		w = w[k:]
	}
	for len(w) > 0 { // full: overwrite the oldest
		r.dropped = true
		k := copy(r.buf[r.start:], w)
		w = w[k:]
		r.start = (r.start + k) % len(r.buf)
	}
	return len(b), nil
}

// lines is how many lines were written.
func (r *ring) lines() int {
	if r.n > 0 && r.last != '\n' {
		return r.newlines + 1
	}
	return r.newlines
}

// bytes returns the kept bytes in order (rotated in place).
func (r *ring) bytes() []byte {
	slices.Reverse(r.buf[:r.start])
	slices.Reverse(r.buf[r.start:])
	slices.Reverse(r.buf)
	r.start = 0
	return r.buf
}
