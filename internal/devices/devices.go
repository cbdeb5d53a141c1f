// Package devices samples real GPU utilisation with nvidia-smi where the
// server's host has it, and says plainly when it does not.
//
// Local pods see host GPUs through CUDA_VISIBLE_DEVICES, which the local
// executor sets from the pod's GPU indices; Attribute maps those indices back
// to the sampled devices. It imports model only.
package devices

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// GPU is one device as nvidia-smi reports it.
type GPU struct {
	Index          int    `json:"index"`
	Name           string `json:"name"`
	UtilPercent    int    `json:"utilPercent"`
	MemoryUsedMiB  int64  `json:"memoryUsedMiB"`
	MemoryTotalMiB int64  `json:"memoryTotalMiB"`
}

// Snapshot is one sample. When Available is false, Reason says why and GPUs
// is empty: the dashboard then shows allocation only.
type Snapshot struct {
	Available bool      `json:"available"`
	Reason    string    `json:"reason,omitempty"`
	SampledAt time.Time `json:"sampledAt"`
	GPUs      []GPU     `json:"gpus"`
}

// queryArgs asks nvidia-smi for one CSV line per GPU.
var queryArgs = []string{"--query-gpu=index,name,utilization.gpu,memory.used,memory.total", "--format=csv,noheader,nounits"}

// Sampler runs nvidia-smi at most once per MaxAge and shares the result.
// The zero value looks nvidia-smi up on PATH and caches for 5 s.
type Sampler struct {
	Binary string        // path to nvidia-smi; "" looks it up on PATH
	MaxAge time.Duration // how long a sample is reused; 0 means 5 s

	mu   sync.Mutex
	last Snapshot
}

// Sample returns a fresh or cached snapshot. It never fails: a missing
// binary or a failing run is reported as unavailable with the reason.
func (s *Sampler) Sample(ctx context.Context, now time.Time) Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	maxAge := s.MaxAge
	if maxAge == 0 {
		maxAge = 5 * time.Second
	}
	if !s.last.SampledAt.IsZero() && now.Sub(s.last.SampledAt) < maxAge {
		return s.last
	}
	s.last = s.run(ctx, now)
	return s.last
}

func (s *Sampler) run(ctx context.Context, now time.Time) Snapshot {
	snap := Snapshot{SampledAt: now, GPUs: []GPU{}}
	bin := s.Binary
	if bin == "" {
		p, err := exec.LookPath("nvidia-smi")
		if err != nil {
			snap.Reason = "device utilisation is unavailable: nvidia-smi is not installed on the server's host"
			return snap
		}
		bin = p
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, queryArgs...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		snap.Reason = fmt.Sprintf("device utilisation is unavailable: %s failed: %v %s", bin, err, strings.TrimSpace(stderr.String()))
		return snap
	}
	gpus, err := Parse(out)
	if err != nil {
		snap.Reason = "device utilisation is unavailable: " + err.Error()
		return snap
	}
	snap.Available, snap.GPUs = true, gpus
	return snap
}

// Parse reads nvidia-smi's CSV (queryArgs). Fields nvidia-smi cannot read
// ("[N/A]", "[Not Supported]") become zero rather than failing the sample.
func Parse(out []byte) ([]GPU, error) {
	gpus := []GPU{}
	for n, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != 5 {
			return nil, fmt.Errorf("nvidia-smi line %d has %d fields, want 5: %q", n+1, len(f), line)
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		idx, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("nvidia-smi line %d: GPU index %q is not a number", n+1, f[0])
		}
		gpus = append(gpus, GPU{Index: idx, Name: f[1], UtilPercent: int(number(f[2])),
			MemoryUsedMiB: number(f[3]), MemoryTotalMiB: number(f[4])})
	}
	if len(gpus) == 0 {
		return nil, errors.New("nvidia-smi listed no GPUs")
	}
	return gpus, nil
}

func number(s string) int64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return int64(v)
}

// TaskUse is one running task's measured use of the devices its pods see.
type TaskUse struct {
	Task string `json:"task"`
	Team string `json:"team"`
	// GPUs are the host device indices the task's pods were given.
	GPUs []int `json:"gpus"`
	// MeanUtilPercent averages those devices; -1 when none was sampled
	// (the index is beyond the host's devices).
	MeanUtilPercent int `json:"meanUtilPercent"`
}

// Attribute maps each running task's pod GPU indices onto the sample.
// Indices are host device indices, as CUDA_VISIBLE_DEVICES carries them.
func Attribute(snap Snapshot, task, team string, placement []model.PodPlacement) TaskUse {
	byIndex := make(map[int]int, len(snap.GPUs))
	for _, g := range snap.GPUs {
		byIndex[g.Index] = g.UtilPercent
	}
	use := TaskUse{Task: task, Team: team, GPUs: []int{}, MeanUtilPercent: -1}
	sum, seen := 0, 0
	for _, p := range placement {
		for _, g := range p.GPUs {
			use.GPUs = append(use.GPUs, g)
			if u, ok := byIndex[g]; ok {
				sum += u
				seen++
			}
		}
	}
	if seen > 0 {
		use.MeanUtilPercent = sum / seen
	}
	return use
}
