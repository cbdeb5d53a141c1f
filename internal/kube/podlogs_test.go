package kube

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/testwait"
)

// lines is a log of n numbered lines of width bytes each.
func lines(run, n, width int) []byte {
	var b bytes.Buffer
	for i := range n {
		s := fmt.Sprintf("run %d line %d ", run, i)
		b.WriteString(s + strings.Repeat("x", width-len(s)-1) + "\n")
	}
	return b.Bytes()
}

// TestPodLogsReadOnlyThePartAsked: a rank's logs across two runs (pods),
// 12 MiB in all, read through a real API server from a kubelet that
// counts what it sends: a part from an offset, a read on from its end and
// a tail each make the kubelet send no more than the part needs (plus the
// bytes before an offset, which the API server cannot seek past), never
// the whole log; the parts are the log's own bytes, and their headers'
// figures are exact where the API server lets taskgov know them.
func TestPodLogsReadOnlyThePartAsked(t *testing.T) {
	kc := kubetest.Start(t)
	kl := kubetest.StartKubelet(t)
	kc.CreateNode(t, kl.Serve(t, p5Node("p5-0", "nn3-a", true, nil)))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ex := NewExecutor(kc.Client, "busybox")
	if err := ex.Run(ctx); err != nil {
		t.Fatal(err)
	}
	run0, run1 := lines(0, 32<<10, 128), lines(1, 64<<10, 128) // 4 MiB and 8 MiB
	kl.SetLog("big-0-run0", run0)
	kl.SetLog("big-0-run1", run1)
	logs := map[string][]byte{"big-0-run0": run0, "big-0-run1": run1}
	for run := range 2 {
		if err := ex.Start(executor.StartSpec{Task: "big", Team: "research", Command: []string{"true"}, Resumes: run,
			Pods: []executor.Pod{{Rank: 0, Node: "p5-0"}}}); err != nil {
			t.Fatal(err)
		}
	}
	var whole []byte
	for _, name := range []string{"big-0-run0", "big-0-run1"} {
		whole = append(append(whole, "=== taskgov: pod "+name+" on node p5-0 ===\n"...), logs[name]...)
	}
	window := func(w model.LogWindow) model.LogPart {
		t.Helper()
		if err := testwait.Until(30*time.Second, 100*time.Millisecond, func() bool {
			ps := ex.taskPods("big")
			return len(ps) == 2 && ps[0].Spec.NodeName != "" && ps[1].Spec.NodeName != "" // both runs bound
		}); err != nil {
			t.Fatal(err)
		}
		rc, err := ex.Logs("big", 0)
		if err != nil {
			t.Fatal(err)
		}
		return mustWindow(t, rc, w)
	}
	const limit = 1 << 20
	check := func(what string, part model.LogPart, from int64, more bool, size int64, maxSent int64) {
		t.Helper()
		sent, asks := kl.Took()
		want := whole[from:min(int64(len(whole)), from+limit)]
		if !bytes.Equal(part.Data, want) || part.Start != from || part.End != from+int64(len(want)) || part.More != more || part.Size != size {
			t.Errorf("%s: %d bytes [%d, %d) more %v size %d; want %d bytes [%d, %d) more %v size %d",
				what, len(part.Data), part.Start, part.End, part.More, part.Size, len(want), from, from+int64(len(want)), more, size)
		}
		if sent > maxSent {
			t.Errorf("%s: the kubelet sent %d bytes (asked %v), want at most %d", what, sent, asks, maxSent)
		}
	}
	kl.Took()
	check("the first MiB", window(model.LogWindow{Limit: limit}), 0, true, -1, limit+1)
	mid := int64(len(run0)) - 100 // across the second pod's header
	// No read has left a mark yet: the first run is read from its start,
	// each line after its stamp (31 bytes), to leave marks for the next.
	check("a MiB across the runs", window(model.LogWindow{Offset: mid, Limit: limit}), mid, true, -1, stamped(mid)+limit+1)
	end := int64(len(whole)) - 1000
	check("the last 1000 bytes", window(model.LogWindow{Offset: end, Limit: limit}), end, false, int64(len(whole)), int64(len(whole)))
	for _, past := range []int64{int64(len(whole)) + 1, math.MaxInt64} {
		if part := window(model.LogWindow{Offset: past, Limit: limit}); part.Size != int64(len(whole)) || len(part.Data) != 0 {
			t.Errorf("offset %d, past the end: %d bytes, size %d; want none and the size %d", past, len(part.Data), part.Size, len(whole))
		}
	}
	kl.Took()

	// A tail: the last lines of the last run, sent by the kubelet alone.
	part := window(model.LogWindow{Tail: 10, Limit: limit})
	sent, _ := kl.Took()
	if want := run1[len(run1)-10*128:]; !bytes.Equal(part.Data, want) || part.More || part.Start != -1 || part.Size != -1 || sent != int64(len(want)) {
		t.Errorf("the last 10 lines: %q more %v start %d size %d, kubelet sent %d; want the run's last 10 lines, placed nowhere, and only them sent",
			part.Data, part.More, part.Start, part.Size, sent)
	}
	// A tail longer than the limit: its last limit bytes, More, and the
	// kubelet sends the lines asked (no more), the executor keeps limit.
	part = window(model.LogWindow{Tail: 20000, Limit: limit})
	sent, _ = kl.Took()
	if want := whole[len(whole)-limit:]; !bytes.Equal(part.Data, want) || !part.More || sent != 20000*128 {
		t.Errorf("a tail past the limit: %d bytes more %v, kubelet sent %d; want the last %d bytes, more, and 20000 lines sent", len(part.Data), part.More, sent, limit)
	}
	// A tail reaching into the first run: its header and its last lines.
	part = window(model.LogWindow{Tail: 64<<10 + 3, Limit: 12 << 20})
	kl.Took()
	if want := whole[len(whole)-(64<<10)*128-len("=== taskgov: pod big-0-run1 on node p5-0 ===\n")-2*128:]; !bytes.Equal(part.Data, want) || part.More {
		t.Errorf("a tail across the runs: %d bytes more %v; want %d bytes", len(part.Data), part.More, len(want))
	}
	// A tail of more lines than the log has: the whole log, placed.
	part = window(model.LogWindow{Tail: 100000, Limit: 13 << 20})
	if !bytes.Equal(part.Data, whole) || part.More || part.Start != 0 || part.End != int64(len(whole)) || part.Size != int64(len(whole)) {
		t.Errorf("a tail of the whole log: %d bytes more %v [%d, %d) size %d; want all %d, placed", len(part.Data), part.More, part.Start, part.End, part.Size, len(whole))
	}

	// A pod whose kubelet cannot give its log (it knows no such
	// container) reads as a line saying so, placed like any log.
	if err := ex.Start(executor.StartSpec{Task: "mute", Team: "research", Command: []string{"true"}, Pods: []executor.Pod{{Rank: 0, Node: "p5-0"}}}); err != nil {
		t.Fatal(err)
	}
	if err := testwait.Until(30*time.Second, 100*time.Millisecond, func() bool {
		ps := ex.taskPods("mute")
		return len(ps) == 1 && ps[0].Spec.NodeName != "" // bound
	}); err != nil {
		t.Fatal(err)
	}
	mute, err := ex.Logs("mute", 0)
	if err != nil {
		t.Fatal(err)
	}
	part = mustWindow(t, mute, model.LogWindow{Limit: limit})
	if s := string(part.Data); !strings.HasPrefix(s, "=== taskgov: pod mute-0-run0 on node p5-0 ===\n(logs unavailable: ") || part.More || part.Size != int64(len(s)) {
		t.Errorf("a log the kubelet cannot give: %q more %v size %d", s, part.More, part.Size)
	}

	// Read streams the whole log, pod after pod.
	rc, err := ex.Logs("big", 0)
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(rc)
	_ = rc.Close()
	if err != nil || !bytes.Equal(all, whole) {
		t.Errorf("reading the whole log: %d bytes, %v; want %d", len(all), err, len(whole))
	}
}

// stamped is what the kubelet sends for n bytes of 128-byte lines, each
// after its stamp.
func stamped(n int64) int64 { return (n + 127) / 128 * (128 + 31) }

// mustWindow reads w from rc, a log Logs returned, and closes it.
func mustWindow(t *testing.T, rc io.ReadCloser, w model.LogWindow) model.LogPart {
	t.Helper()
	defer rc.Close()
	part, err := rc.(interface {
		Window(context.Context, model.LogWindow) (model.LogPart, error)
	}).Window(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	return part
}
