package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/taskgov/taskgov/internal/executor"
	"github.com/taskgov/taskgov/internal/kube/kubetest"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/testwait"
)

// logRig is a real API server, a kubelet that serves the logs a test
// writes, and an executor whose task "follow" has runs pods of rank 0 on it.
type logRig struct {
	kc *kubetest.Cluster
	kl *kubetest.Kubelet
	ex *Executor
}

func startLogRig(t *testing.T, runs int) *logRig {
	t.Helper()
	r := &logRig{kc: kubetest.Start(t), kl: kubetest.StartKubelet(t)}
	r.kc.CreateNode(t, r.kl.Serve(t, p5Node("p5-0", "nn3-a", true, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r.ex = NewExecutor(r.kc.Client, "busybox")
	if err := r.ex.Run(ctx); err != nil {
		t.Fatal(err)
	}
	for run := range runs {
		if err := r.ex.Start(executor.StartSpec{Task: "follow", Team: "research", Command: []string{"true"}, Resumes: run,
			Pods: []executor.Pod{{Rank: 0, Node: "p5-0"}}}); err != nil {
			t.Fatal(err)
		}
	}
	r.waitPods(t, func(ps []*corev1.Pod) bool {
		for _, p := range ps {
			if p.Spec.NodeName == "" {
				return false
			}
		}
		return len(ps) == runs
	})
	return r
}

// waitPods waits until the executor's pods of the task satisfy ok.
func (r *logRig) waitPods(t *testing.T, ok func([]*corev1.Pod) bool) {
	t.Helper()
	if err := testwait.Until(30*time.Second, 100*time.Millisecond, func() bool { return ok(r.ex.taskPods("follow")) }); err != nil {
		t.Fatal(err)
	}
}

// window reads w of rank 0's log, as GET .../logs does.
func (r *logRig) window(t *testing.T, w model.LogWindow) model.LogPart {
	t.Helper()
	rc, err := r.ex.Logs("follow", 0)
	if err != nil {
		t.Fatal(err)
	}
	return mustWindow(t, rc, w)
}

// readOn reads the log from offset to its end, part by part as
// get-log does, and returns what it read and where it ends.
func (r *logRig) readOn(t *testing.T, offset int64) ([]byte, int64) {
	t.Helper()
	var got []byte
	for {
		part := r.window(t, model.LogWindow{Offset: offset, Limit: 8 << 20})
		got = append(got, part.Data...)
		if part.End >= 0 {
			offset = part.End
		}
		if !part.More {
			return got, offset
		}
	}
}

// TestFollowingAPodLogReadsWhatIsNew: a follower of a 50 MiB pod log
// (128-byte lines, a millisecond apart) polls it 20 times while it grows
// by a second of lines, a burst of lines stamped alike, a line written in
// two halves; it gets every byte once, in order, and each poll makes the
// kubelet send the new lines and those of the two seconds before (the
// mark's second and stampMargin: at most 2000 lines, each after its
// 31-byte stamp), however long the log is. An
// offset past the end costs the same and says the size.
func TestFollowingAPodLogReadsWhatIsNew(t *testing.T) {
	r := startLogRig(t, 1)
	pod := "follow-0-run0"
	log := lines(0, 50<<20/128, 128)
	r.kl.SetLog(pod, log)
	whole := append([]byte("=== taskgov: pod "+pod+" on node p5-0 ===\n"), log...)

	got, printed := r.readOn(t, 0) // catching up
	caughtUp, _ := r.kl.Took()
	if !bytes.Equal(got, whole) {
		t.Fatalf("catching up: %d bytes; want the %d of the log", len(got), len(whole))
	}
	t.Logf("catching up on %d bytes: the kubelet sent %d", len(whole), caughtUp)
	const perSecond = 1000 // lines
	var total int64
	for poll := range 20 {
		var more []byte
		step := time.Millisecond
		switch poll {
		case 3: // a burst: 200 lines stamped as the line before
			more, step = lines(poll+1, 200, 128), 0
		case 5: // half a line now, the rest next poll
			more = []byte("a line written in two ")
		case 6:
			more = append([]byte("halves\n"), lines(poll+1, perSecond, 128)...)
		default:
			more = lines(poll+1, perSecond, 128)
		}
		r.kl.AppendLog(pod, more, step)
		whole = append(whole, more...)
		part, end := r.readOn(t, printed)
		sent, asks := r.kl.Took()
		total += sent
		if !bytes.Equal(part, whole[printed:]) {
			t.Fatalf("poll %d: %d bytes from %d; want the %d new ones", poll, len(part), printed, len(whole)-int(printed))
		}
		if bound := stamped(int64(len(more))+2*perSecond*128) + 64<<10; sent > bound {
			t.Errorf("poll %d: the kubelet sent %d bytes (%v) for %d new ones, want at most %d", poll, sent, asks, len(more), bound)
		}
		printed = end
	}
	t.Logf("20 polls of a %d-byte log: the kubelet sent %d bytes", len(whole), total)

	part := r.window(t, model.LogWindow{Offset: math.MaxInt64, Limit: 8 << 20})
	sent, _ := r.kl.Took()
	if part.Size != int64(len(whole)) || len(part.Data) != 0 || sent > stamped(2*perSecond*128)+64<<10 {
		t.Errorf("an offset past the end: size %d, %d bytes, the kubelet sent %d; want the size %d, nothing, a second of lines sent",
			part.Size, len(part.Data), sent, len(whole))
	}
	t.Logf("an offset past the end: the kubelet sent %d bytes", sent)

	// The same follower without marks (every read from the log's start, as
	// before the index): each poll costs the whole log.
	plain := &podLogs{client: r.kc.Client, pods: r.ex.taskPods("follow")}
	r.kl.AppendLog(pod, lines(99, perSecond, 128), time.Millisecond)
	part, err := plain.Window(context.Background(), model.LogWindow{Offset: printed, Limit: 8 << 20})
	sent, _ = r.kl.Took()
	if err != nil || part.Start != printed || sent < int64(len(whole)) {
		t.Errorf("a poll without marks: %v, from %d, the kubelet sent %d", err, part.Start, sent)
	}
	t.Logf("a poll without marks: the kubelet sent %d bytes", sent)
}

// TestPodLogLinesStampedOutOfOrder: the runtime stamps a stream's line
// before it writes it, so a stderr line may follow a stdout line in the
// file stamped a little before it, across a second. A follower whose last
// mark is the line at a second's start still gets the line written after
// it but stamped before that second, and every byte at its place, without
// falling back to a read from the log's start.
func TestPodLogLinesStampedOutOfOrder(t *testing.T) {
	r := startLogRig(t, 1)
	pod := "follow-0-run0"
	log := lines(0, 3001, 128) // the last stamped LogEpoch + 3 s exactly
	r.kl.SetLog(pod, log)
	whole := append([]byte("=== taskgov: pod "+pod+" on node p5-0 ===\n"), log...)
	got, printed := r.readOn(t, 0)
	if !bytes.Equal(got, whole) {
		t.Fatalf("catching up: %d bytes; want %d", len(got), len(whole))
	}
	r.readOn(t, printed-1000) // leaves marks, the last at the last line
	late := []byte("stderr: written after the second's first line, stamped before it\n")
	r.kl.AppendLog(pod, late, -2*time.Millisecond)
	more := lines(1, 100, 128)
	r.kl.AppendLog(pod, more, 3*time.Millisecond)
	whole = append(append(whole, late...), more...)
	r.kl.Took()
	part, end := r.readOn(t, printed)
	sent, _ := r.kl.Took()
	if !bytes.Equal(part, whole[printed:]) || end != int64(len(whole)) {
		t.Fatalf("reading on from %d: %q... (%d bytes, to %d); want the %d new bytes", printed, part[:min(len(part), 80)], len(part), end, len(whole)-int(printed))
	}
	if sent >= int64(len(whole)) {
		t.Errorf("the kubelet sent %d bytes, the whole log or more: the read fell back to the log's start", sent)
	}
}

// TestPodLogMarksThatNoLongerFit: a log replaced under its marks (its
// lines stamped as before, their bytes not) and a log whose stamps go back
// are read from their start, byte for byte, not from a mark that no
// longer places them.
func TestPodLogMarksThatNoLongerFit(t *testing.T) {
	r := startLogRig(t, 1)
	pod := "follow-0-run0"
	header := []byte("=== taskgov: pod " + pod + " on node p5-0 ===\n")
	r.kl.SetLog(pod, lines(0, 20000, 128))
	r.readOn(t, 0)
	r.readOn(t, 1<<20) // leaves marks
	for _, c := range []struct {
		what string
		log  []byte
		step time.Duration // appended to log, with this step
	}{
		{"replaced", lines(7, 20000, 128), time.Millisecond},
		{"stamps that go back", lines(8, 20000, 128), -time.Microsecond},
	} {
		r.kl.SetLog(pod, c.log[:len(c.log)/2])
		r.kl.AppendLog(pod, c.log[len(c.log)/2:], c.step)
		r.kl.Took()
		whole := append(append([]byte(nil), header...), c.log...)
		for _, off := range []int64{1 << 20, int64(len(whole)) - 500} {
			if got, end := r.readOn(t, off); !bytes.Equal(got, whole[off:]) || end != int64(len(whole)) {
				t.Errorf("%s, from %d: %d bytes ending at %d; want %d ending at %d", c.what, off, len(got), end, len(whole)-int(off), len(whole))
			}
		}
	}
}

// TestPodLogReaderThatGoesAway: a read whose reader goes away (the
// request's context ends) while the API server is still sending returns
// at once, and the kubelet's response ends: nothing holds the stream.
func TestPodLogReaderThatGoesAway(t *testing.T) {
	r := startLogRig(t, 1)
	pod := "follow-0-run0"
	r.kl.SetLog(pod, lines(0, 100, 128))
	r.kl.Stall(pod)
	rc, err := r.ex.Logs("follow", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := rc.(*podLogs).Window(ctx, model.LogWindow{Offset: 100, Limit: 1 << 20})
		done <- err
	}()
	if err := testwait.Until(30*time.Second, 20*time.Millisecond, func() bool { return r.kl.Open() == 1 }); err != nil {
		t.Fatal("the kubelet never began sending")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the read ended with %v; want context.Canceled", err)
		}
	case <-time.After(testwait.Scale(30 * time.Second)):
		t.Fatal("the read did not end when its reader went away")
	}
	if err := testwait.Until(30*time.Second, 20*time.Millisecond, func() bool { return r.kl.Open() == 0 }); err != nil {
		t.Error("the kubelet is still sending to a reader that went away")
	}
}

// TestFinishedPodLogIsNotReadAgain: once a finished run's log was read to
// its end, a read in a later run asks the API server nothing of it.
func TestFinishedPodLogIsNotReadAgain(t *testing.T) {
	r := startLogRig(t, 2)
	run0, run1 := lines(0, 8000, 128), lines(1, 8000, 128)
	r.kl.SetLog("follow-0-run0", run0)
	r.kl.SetLog("follow-0-run1", run1)
	p, err := r.kc.Client.CoreV1().Pods(r.ex.taskPods("follow")[0].Namespace).Get(context.Background(), "follow-0-run0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodSucceeded
	if _, err := r.kc.Client.CoreV1().Pods(p.Namespace).UpdateStatus(context.Background(), p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.waitPods(t, func(ps []*corev1.Pod) bool { return len(ps) == 2 && podFinished(ps[0]) })
	var whole []byte
	for i, l := range [][]byte{run0, run1} {
		whole = append(append(whole, fmt.Sprintf("=== taskgov: pod follow-0-run%d on node p5-0 ===\n", i)...), l...)
	}
	r.readOn(t, 0)
	r.kl.Took()
	off := int64(len(whole)) - 1000
	got, _ := r.readOn(t, off)
	if _, asks := r.kl.Took(); !bytes.Equal(got, whole[off:]) || strings.Contains(fmt.Sprint(asks), "run0") {
		t.Errorf("reading the second run: %d bytes, asked %v; want %d, nothing of the first run", len(got), asks, len(whole)-int(off))
	}
}
