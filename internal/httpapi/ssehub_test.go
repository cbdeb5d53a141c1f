package httpapi

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestRingBatchesEvents: events appended between two seals reach a stream
// as one batch, a full pending batch seals itself, and a stream that falls
// more than hubBatches behind is told how many events it missed.
func TestRingBatchesEvents(t *testing.T) {
	r := newRing()
	at := r.head()
	select {
	case <-r.wait(at):
		t.Fatal("an empty ring woke its stream")
	default:
	}
	for i := 0; i < 50; i++ {
		r.append([]byte(fmt.Sprintf("e%d\n", i)), time.Now())
	}
	wake := r.wait(at)
	select {
	case <-wake:
		t.Fatal("a stream woke before the batch was sealed")
	default:
	}
	r.mu.Lock()
	r.seal()
	r.mu.Unlock()
	<-wake
	got, at, missed := r.since(nil, at, false)
	if len(got) != 1 || missed != 0 || !bytes.HasPrefix(got[0], []byte("e0\ne1\n")) || !bytes.HasSuffix(got[0], []byte("e49\n")) {
		t.Fatalf("50 events: %d batches, missed %d, %q", len(got), missed, got)
	}
	if at.events != 50 {
		t.Fatalf("cursor at %d events, want 50", at.events)
	}

	// A pending batch seals itself when it reaches hubBatchBytes.
	big := bytes.Repeat([]byte("x"), hubBatchBytes)
	r.append(big, time.Now())
	if got, _, _ := r.since(nil, at, false); len(got) != 1 || len(got[0]) != hubBatchBytes {
		t.Fatalf("a full batch was not sealed at once: %d batches", len(got))
	}

	// Fall behind: hubBatches+2 more batches of 3 events each.
	slow := at
	for b := 0; b < hubBatches+2; b++ {
		for i := 0; i < 3; i++ {
			r.append([]byte("y\n"), time.Now())
		}
		r.mu.Lock()
		r.seal()
		r.mu.Unlock()
	}
	got, slow, missed = r.since(nil, slow, false)
	// The big batch and the first 2 small ones (1 + 2×3 events) were
	// overwritten; the ring keeps the last hubBatches small ones.
	if len(got) != hubBatches || missed != 1+2*3 {
		t.Fatalf("behind: %d batches, missed %d; want %d and %d", len(got), missed, hubBatches, 1+2*3)
	}
	if slow.events != r.head().events {
		t.Fatalf("cursor %d events, head %d", slow.events, r.head().events)
	}
}

// TestRingSealInterval: a quiet ring's batch is due sseFlushEvery after its
// first event; after a batch of at least hubBusyBytes the ring is busy and
// its next batch is due sseFlushBusy after its first event, until a small
// batch makes it quiet again. The hub seals only the batches that are due.
func TestRingSealInterval(t *testing.T) {
	h := &hub{all: newRing(), teams: map[string]*ring{}}
	r := h.all
	t0 := time.Unix(1000, 0)
	r.append([]byte("a\n"), t0)
	r.append([]byte("b\n"), t0.Add(50*time.Millisecond))
	if due := h.nextDue(); !due.Equal(t0.Add(sseFlushEvery)) {
		t.Fatalf("quiet ring due %v after its first event, want %v", due.Sub(t0), sseFlushEvery)
	}
	h.sealDue(t0.Add(sseFlushEvery - time.Millisecond))
	if r.head().batch != 0 {
		t.Fatal("sealed before it was due")
	}
	h.sealDue(t0.Add(sseFlushEvery))
	if r.head().batch != 1 || !h.nextDue().IsZero() {
		t.Fatalf("not sealed when due: %d batches, next due %v", r.head().batch, h.nextDue())
	}

	// A busy batch (sealed by the timer, at least hubBusyBytes).
	t1 := t0.Add(time.Second)
	r.append(bytes.Repeat([]byte("x"), hubBusyBytes), t1)
	h.sealDue(t1.Add(sseFlushEvery))
	t2 := t1.Add(time.Second)
	r.append([]byte("c\n"), t2)
	if due := h.nextDue(); !due.Equal(t2.Add(sseFlushBusy)) {
		t.Fatalf("busy ring due %v after its first event, want %v", due.Sub(t2), sseFlushBusy)
	}
	h.sealDue(t2.Add(sseFlushBusy))
	t3 := t2.Add(time.Second)
	r.append([]byte("d\n"), t3)
	if due := h.nextDue(); !due.Equal(t3.Add(sseFlushEvery)) {
		t.Fatalf("after a small batch the ring is due %v after its first event, want %v", due.Sub(t3), sseFlushEvery)
	}
}

// TestGzipBatchesStandAlone: compressed batches, behind one gzip header,
// decode from whichever batch a stream starts at, and a batch sealed before
// any stream wanted gzip is compressed when read.
func TestGzipBatchesStandAlone(t *testing.T) {
	r := newRing()
	seal := func(text string) {
		r.append([]byte(text), time.Now())
		r.mu.Lock()
		r.seal()
		r.mu.Unlock()
	}
	seal("a: plain only\n\n")
	r.gzipStreams.Add(1)
	for i := 0; i < 3; i++ {
		seal(strings.Repeat(fmt.Sprintf("data: {\"batch\":%d}\n\n", i), 50))
	}
	for from := uint64(0); from < 4; from++ {
		got, _, _ := r.since(nil, cursor{batch: from}, true)
		plain, _, _ := r.since(nil, cursor{batch: from}, false)
		zr, err := gzip.NewReader(io.MultiReader(bytes.NewReader(gzipHeader), bytes.NewReader(bytes.Join(got, nil))))
		if err != nil {
			t.Fatal(err)
		}
		want := bytes.Join(plain, nil)
		dec := make([]byte, len(want))
		if _, err := io.ReadFull(zr, dec); err != nil || !bytes.Equal(dec, want) {
			t.Fatalf("from batch %d: decoded %q (%v), want %q", from, dec, err, want)
		}
	}
}

// TestAcceptsGzip reads Accept-Encoding as RFC 9110 says.
func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"": false, "gzip": true, "gzip, deflate, br, zstd": true, "br;q=1.0, gzip;q=0.8": true, "GZIP": true,
		"x-gzip": true, "identity": false, "gzip;q=0": false, "gzip; q=0.000": false, "*": true, "*;q=0": false,
		"gzip;q=0, *": false, "deflate, *;q=0.1": true, "gzip;q=0.01": true,
	} {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
}
