package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Errors that make a stamped read give way to a read from the log's start.
var (
	errStaleMark = errors.New("kube: the log does not match its mark")
	errBadStamp  = errors.New("kube: a line came without its stamp, or its stamp went back")
)

// maxStampedReads bounds the requests one stamped read of a pod makes
// (each at least a line further on, or asking four times more).
const maxStampedReads = 8

// stampMargin is how far before its mark's second a stamped read asks
// the API server to begin, and how far a line's stamp may go back behind
// the latest stamp before it. The runtime stamps each stream's line before
// it writes it to the shared log file, so a stdout and a stderr line may
// land in the file out of stamp order by the time between the two; the
// API server leaves out every line stamped before sinceTime wherever it
// stands in the file, so a read that began at the mark's own second could
// miss a line written after the mark but stamped before that second. A
// line whose stamp goes further back than this says the clock stepped
// back: the read gives way to one from the log's start.
const stampMargin = time.Second

// maxStamp is the longest stamp the API server sends (RFC 3339 with
// nanoseconds and a zone offset).
const maxStamp = len("2006-01-02T15:04:05.000000000-07:00")

// feedStamped feeds c the bytes of pod p's log it still wants, asking the
// API server only for the lines from the second of the nearest mark
// before them on (sinceTime, with timestamps), and leaves marks behind for
// the next read. base is where the pod's log starts in the whole log. It
// reports false, having fed c nothing it should not have, when the marks
// cannot place the read (none fits, the log does not match them, the API
// server cannot give the log): the caller then reads the pod from its
// start.
func (l *podLogs) feedStamped(ctx context.Context, p *corev1.Pod, c *cursor, base int64) (bool, error) {
	ratio := 1.5 // bytes sent per byte of the log (stamps), until measured
	lastFrom, lastPos := int64(-1), int64(-1)
	for range maxStampedReads {
		want := max(c.offset, c.pos) - base // the first byte of the pod's log still wanted
		m := l.index.mark(p.UID, want)
		if m.off == lastFrom && c.pos == lastPos {
			ratio *= 4 // the last read was spent before reaching the part
		}
		lastFrom, lastPos = m.off, c.pos
		if c.pos < base+m.off { // the bytes before the mark are all before the offset
			c.pos = base + m.off
		}
		ask := stampedAsk(want-m.off+c.want-int64(len(c.out)), ratio)
		opts := &corev1.PodLogOptions{Timestamps: true, LimitBytes: &ask}
		if !m.at.IsZero() {
			since := metav1.NewTime(m.at.Truncate(time.Second).Add(-stampMargin))
			opts.SinceTime = &since
		}
		rc, err := l.client.CoreV1().Pods(p.Namespace).GetLogs(p.Name, opts).Stream(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return false, readError(ctx, p, err)
			}
			return false, nil // the read from the start says why
		}
		s := &stampedLog{c: c, from: m, base: base}
		_, err = io.Copy(s, rc)
		_ = rc.Close()
		if errors.Is(err, errStaleMark) || errors.Is(err, errBadStamp) {
			l.index.forget(p.UID)
			return false, nil
		}
		if err != nil && !errors.Is(err, errFull) {
			return false, readError(ctx, p, err)
		}
		l.index.add(p.UID, s.marks()...)
		if c.full() {
			return true, nil
		}
		if s.wire < ask { // the log's end
			if !s.synced && !m.at.IsZero() || s.synced && !s.checked {
				l.index.forget(p.UID) // the mark's line is gone
				return false, nil
			}
			end := m.off
			if s.synced {
				end = s.pos
			}
			c.pos = max(c.pos, base+end)
			if podFinished(p) {
				l.index.setSize(p.UID, end)
			}
			return true, nil
		}
		if s.content > 0 {
			ratio = max(ratio, 1.1*float64(s.wire)/float64(s.content))
		}
	}
	return false, nil
}

// readError says why reading p's log failed: the context's end (the
// reader went away, or logTimeout passed), else err.
func readError(ctx context.Context, p *corev1.Pod, err error) error {
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return fmt.Errorf("reading the log of pod %s: %w", p.Name, err)
}

// stampedAsk is the limitBytes to ask for raw bytes of a log at ratio
// bytes sent per byte, and 64 KiB for a line in progress.
func stampedAsk(raw int64, ratio float64) int64 {
	f := float64(raw)*ratio + 64<<10
	if raw < 0 || f >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(f)
}

// podFinished says the pod's containers have ended, so its log is final.
func podFinished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// stampedLog takes a pod's log as the API server sends it with timestamps
// (each line after its stamp and a space) from the second of the mark
// from on, less stampMargin, and feeds the log's own bytes to a cursor at
// their place: the line at from is the first kept (the lines stamped
// before from.at are dropped), and it is kept only once its first from.k
// bytes match the mark. On the way it notes marks: a line stamped after
// every line before it in the read (every markStride bytes, and the
// last), so no line after a mark is stamped before it by more than the
// runtime's reordering.
type stampedLog struct {
	c    *cursor
	from logMark
	base int64 // where the pod's log starts in the whole log
	pos  int64 // the pod-log offset of the next byte of a kept line

	state   int       // atStamp, inLine or dropping
	stamp   []byte    // a stamp read in part
	synced  bool      // from's line was found: every line from here on is kept
	checked bool      // from's line matched the mark
	held    []byte    // from's line's first bytes, held until checked
	top     time.Time // the latest stamp of a kept line
	cur     *logMark  // the mark the current line makes, if it makes one
	head    []byte    // the current line's first markHead bytes
	strided []logMark
	last    *logMark
	wire    int64 // bytes taken, stamps included
	content int64 // bytes of lines taken, stamps left out
}

const (
	atStamp = iota
	inLine
	dropping
)

// Write implements io.Writer for io.Copy: it fails with errFull once the
// cursor is full, and with errStaleMark or errBadStamp when the log does
// not match the mark or comes without stamps.
func (s *stampedLog) Write(b []byte) (int, error) {
	n := len(b)
	s.wire += int64(n)
	for len(b) > 0 {
		switch s.state {
		case atStamp:
			i := bytes.IndexAny(b, " \n")
			if i < 0 {
				if len(s.stamp)+len(b) > maxStamp {
					return n, s.noStamp(dropping)
				}
				s.stamp = append(s.stamp, b...)
				b = nil
				continue
			}
			if len(s.stamp)+i > maxStamp || b[i] == '\n' {
				if err := s.noStamp(dropping); err != nil {
					return n, err
				}
				continue
			}
			at, err := time.Parse(time.RFC3339Nano, string(append(s.stamp, b[:i]...)))
			s.stamp, b = s.stamp[:0], b[i+1:]
			if err != nil {
				if err := s.noStamp(dropping); err != nil {
					return n, err
				}
				continue
			}
			if err := s.startLine(at); err != nil {
				return n, err
			}
		case dropping:
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				s.content += int64(len(b))
				b = nil
				continue
			}
			s.content += int64(i + 1)
			b, s.state = b[i+1:], atStamp
		case inLine:
			chunk := b
			i := bytes.IndexByte(b, '\n')
			if i >= 0 {
				chunk = b[:i+1]
			}
			b = b[len(chunk):]
			if err := s.keep(chunk, i >= 0); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// noStamp handles a line without a stamp: before from's line it is one
// to drop (a line that began before the second asked for goes on without
// its stamp); after, the log is not what the marks describe.
func (s *stampedLog) noStamp(next int) error {
	if s.synced {
		return errBadStamp
	}
	s.stamp, s.state = s.stamp[:0], next
	return nil
}

// startLine begins a line stamped at.
func (s *stampedLog) startLine(at time.Time) error {
	switch {
	case !s.synced && !s.from.at.IsZero() && at.Before(s.from.at):
		s.state = dropping
		return nil
	case !s.synced && !s.from.at.IsZero() && !at.Equal(s.from.at):
		return errStaleMark
	case !s.synced:
		s.synced, s.pos, s.cur = true, s.from.off, nil
		s.checked = s.from.at.IsZero() || s.from.k == 0
	case at.Before(s.top.Add(-stampMargin)):
		return errBadStamp // the clock stepped back: lines may be missing
	case at.After(s.top):
		s.cur = &logMark{off: s.pos, at: at}
	default:
		s.cur = nil // not after every line before it: no mark can start here
	}
	if at.After(s.top) {
		s.top = at
	}
	s.head, s.state = s.head[:0], inLine
	return nil
}

// keep takes a piece of the current line; ends says it ends the line.
func (s *stampedLog) keep(chunk []byte, ends bool) error {
	s.content += int64(len(chunk))
	if len(s.head) < markHead {
		s.head = append(s.head, chunk[:min(len(chunk), markHead-len(s.head))]...)
	}
	if !s.checked {
		switch {
		case len(s.head) >= s.from.k:
			if crc32.ChecksumIEEE(s.head[:s.from.k]) != s.from.sum {
				return errStaleMark
			}
			s.checked, chunk, s.held = true, append(s.held, chunk...), nil
		case ends:
			return errStaleMark // shorter than when it was marked
		default:
			s.held = append(s.held, chunk...)
			return nil
		}
	}
	full := s.c.feedAt(s.base+s.pos, chunk)
	s.pos += int64(len(chunk))
	if ends {
		s.endMark()
		s.state = atStamp
	}
	if full {
		return errFull
	}
	return nil
}

// endMark completes the mark the current line makes, with the bytes of it
// read.
func (s *stampedLog) endMark() {
	if s.cur == nil {
		return
	}
	m := *s.cur
	s.cur = nil
	m.k, m.sum = len(s.head), crc32.ChecksumIEEE(s.head)
	if n := len(s.strided); n == 0 || m.off-s.strided[n-1].off >= markStride {
		s.strided = append(s.strided, m)
	}
	s.last = &m
}

// marks returns the marks the read left behind (a line read in part
// makes one with the bytes of it read).
func (s *stampedLog) marks() []logMark {
	s.endMark()
	if s.last != nil && (len(s.strided) == 0 || s.strided[len(s.strided)-1].off != s.last.off) {
		return append(s.strided, *s.last)
	}
	return s.strided
}
