package devices

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// script writes an executable shell script standing in for nvidia-smi on a
// host without GPUs; it appends one line to calls per run.
func script(t *testing.T, body string) (bin, calls string) {
	t.Helper()
	dir := t.TempDir()
	bin, calls = filepath.Join(dir, "nvidia-smi"), filepath.Join(dir, "calls")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho run >> "+calls+"\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, calls
}

func TestNoNvidiaSmiSaysUnavailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	snap := (&Sampler{}).Sample(context.Background(), time.Now())
	if snap.Available || !strings.Contains(snap.Reason, "nvidia-smi is not installed") || len(snap.GPUs) != 0 {
		t.Fatalf("snapshot = %+v, want unavailable with a reason", snap)
	}
}

func TestSampleParsesAndCaches(t *testing.T) {
	bin, calls := script(t, `echo "0, NVIDIA H200, 87, 70123, 143771"
echo "1, NVIDIA H200, [N/A], 0, 143771"
`)
	s := &Sampler{Binary: bin, MaxAge: time.Minute}
	t0 := time.Now()
	snap := s.Sample(context.Background(), t0)
	if !snap.Available || len(snap.GPUs) != 2 {
		t.Fatalf("snapshot = %+v", snap)
	}
	if g := snap.GPUs[0]; g.Index != 0 || g.Name != "NVIDIA H200" || g.UtilPercent != 87 || g.MemoryUsedMiB != 70123 || g.MemoryTotalMiB != 143771 {
		t.Fatalf("GPU 0 = %+v", g)
	}
	if g := snap.GPUs[1]; g.UtilPercent != 0 {
		t.Fatalf("[N/A] utilisation = %d, want 0", g.UtilPercent)
	}
	s.Sample(context.Background(), t0.Add(30*time.Second))
	s.Sample(context.Background(), t0.Add(2*time.Minute))
	b, _ := os.ReadFile(calls)
	if n := strings.Count(string(b), "run"); n != 2 {
		t.Fatalf("nvidia-smi ran %d times, want 2 (one cached sample)", n)
	}
}

func TestFailingNvidiaSmiSaysWhy(t *testing.T) {
	bin, _ := script(t, "echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver' >&2\nexit 9\n")
	snap := (&Sampler{Binary: bin}).Sample(context.Background(), time.Now())
	if snap.Available || !strings.Contains(snap.Reason, "could not communicate with the NVIDIA driver") {
		t.Fatalf("snapshot = %+v", snap)
	}
}

func TestParseRejectsGarbage(t *testing.T) {
	for _, in := range []string{"", "0, H200, 50", "x, H200, 1, 2, 3"} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
}

func TestAttributeAveragesTheTasksDevices(t *testing.T) {
	snap := Snapshot{Available: true, GPUs: []GPU{{Index: 0, UtilPercent: 90}, {Index: 1, UtilPercent: 30}}}
	use := Attribute(snap, "train", "alpha", []model.PodPlacement{{Rank: 0, Node: "n1", GPUs: []int{0, 1}}})
	if use.MeanUtilPercent != 60 || len(use.GPUs) != 2 {
		t.Fatalf("use = %+v", use)
	}
	if use := Attribute(snap, "far", "alpha", []model.PodPlacement{{GPUs: []int{7}}}); use.MeanUtilPercent != -1 {
		t.Fatalf("unsampled device gave %+v, want -1", use)
	}
}
