package kube

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// TestLogIndexKeepsItsBounds: a pod's marks stay at most maxMarksPerPod,
// spread over the log and always with the newest; a lookup finds the
// nearest mark at or before an offset; past maxIndexedPods pods the one
// used least recently goes; forget drops a pod's marks, not its size.
func TestLogIndexKeepsItsBounds(t *testing.T) {
	x := newLogIndex()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1000 {
		x.add("a", logMark{off: int64(i) << 20, at: at.Add(time.Duration(i) * time.Second)})
	}
	p := x.pods["a"]
	if len(p.marks) != maxMarksPerPod || p.marks[len(p.marks)-1].off != 999<<20 {
		t.Fatalf("%d marks, the last at %d; want %d, the last at %d", len(p.marks), p.marks[len(p.marks)-1].off, maxMarksPerPod, 999<<20)
	}
	for i := range p.marks {
		before := int64(0)
		if i > 0 {
			before = p.marks[i-1].off
		}
		if gap := p.marks[i].off - before; gap <= 0 || gap > 64<<20 {
			t.Fatalf("mark %d is %d bytes after the one before (or the log's start): not spread over the log", i, gap)
		}
	}
	for _, off := range []int64{0, 5 << 20, 500<<20 + 7, 1 << 40} {
		m := x.mark("a", off)
		for _, o := range p.marks {
			if o.off <= off && o.off > m.off {
				t.Errorf("mark(%d) = %d; %d is nearer", off, m.off, o.off)
			}
		}
		if m.off > off {
			t.Errorf("mark(%d) = %d, after it", off, m.off)
		}
	}
	if m := x.mark("none", 1<<30); m.off != 0 || !m.at.IsZero() {
		t.Errorf("an unknown pod's mark: %+v; want the log's start", m)
	}
	x.setSize("a", 42)
	x.forget("a")
	if m := x.mark("a", 1<<30); m.off != 0 || x.size("a") != 42 {
		t.Errorf("after forget: mark %+v, size %d; want the start and the size kept", m, x.size("a"))
	}
	for i := range maxIndexedPods + 10 {
		x.add(types.UID(fmt.Sprintf("pod-%d", i)), logMark{off: 1, at: at})
		x.mark("a", 0) // "a" stays in use
	}
	if len(x.pods) != maxIndexedPods || x.size("a") != 42 || x.pods["pod-0"] != nil {
		t.Errorf("%d pods, a's size %d, pod-0 kept %v; want %d, 42, pod-0 evicted", len(x.pods), x.size("a"), x.pods["pod-0"] != nil, maxIndexedPods)
	}
}
