// Package trends samples the cluster's capacity and use per instance type
// and keeps two resolutions: fine points for the last day, and hourly means
// (downsampled from the fine points) for the last week and more.
//
// It imports store and metrics (for the snapshot shape). It must never
// import the engine.
package trends

import (
	"context"
	"log/slog"
	"sort"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// Resolutions and how long each is kept.
const (
	Fine       = time.Minute
	Coarse     = time.Hour
	KeepFine   = 26 * time.Hour
	KeepCoarse = 35 * 24 * time.Hour
)

// Store is what the sampler needs of the database (either adapter).
type Store interface {
	AddSamples(ctx context.Context, resolution time.Duration, ss []model.Sample) error
	Samples(ctx context.Context, resolution time.Duration, from time.Time) ([]model.Sample, error)
	PruneSamples(ctx context.Context, resolution time.Duration, before time.Time) error
}

// Sampler records samples from read every interval.
type Sampler struct {
	Store    Store
	Read     func(at time.Time) []model.Sample
	Interval time.Duration // default Fine
	Log      *slog.Logger
}

// Run samples until ctx ends; on every hour boundary crossed it stores the
// mean of the past hour's fine samples as one coarse sample and prunes.
func (s *Sampler) Run(ctx context.Context) {
	if s.Interval <= 0 {
		s.Interval = Fine
	}
	lastHour := time.Now().UTC().Truncate(time.Hour)
	tick := time.NewTicker(s.Interval)
	defer tick.Stop()
	for {
		now := time.Now().UTC()
		if err := s.Store.AddSamples(ctx, Fine, s.Read(now)); err != nil && ctx.Err() == nil {
			s.Log.Warn("storing samples failed", "err", err)
		}
		if hour := now.Truncate(time.Hour); hour.After(lastHour) {
			if err := s.Downsample(ctx, lastHour, hour); err != nil && ctx.Err() == nil {
				s.Log.Warn("downsampling failed", "err", err)
			}
			lastHour = hour
			_ = s.Store.PruneSamples(ctx, Fine, now.Add(-KeepFine))
			_ = s.Store.PruneSamples(ctx, Coarse, now.Add(-KeepCoarse))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Downsample stores, per instance type, the mean of the fine samples in
// [from, to) as one coarse sample at from.
func (s *Sampler) Downsample(ctx context.Context, from, to time.Time) error {
	fine, err := s.Store.Samples(ctx, Fine, from)
	if err != nil {
		return err
	}
	return s.Store.AddSamples(ctx, Coarse, Mean(fine, from, to))
}

// Mean averages samples in [from, to) per instance type, stamped at from.
func Mean(ss []model.Sample, from, to time.Time) []model.Sample {
	sum := map[string]*model.Sample{}
	n := map[string]float64{}
	for _, x := range ss {
		if x.At.Before(from) || !x.At.Before(to) {
			continue
		}
		a := sum[x.InstanceType]
		if a == nil {
			a = &model.Sample{At: from, InstanceType: x.InstanceType}
			sum[x.InstanceType] = a
		}
		a.GPUs += x.GPUs
		a.GPUsUsed += x.GPUsUsed
		a.VCPU += x.VCPU
		a.VCPUUsed += x.VCPUUsed
		a.MemGiB += x.MemGiB
		a.MemUsedGiB += x.MemUsedGiB
		n[x.InstanceType]++
	}
	var out []model.Sample
	for it, a := range sum {
		k := n[it]
		a.GPUs, a.GPUsUsed, a.VCPU, a.VCPUUsed, a.MemGiB, a.MemUsedGiB = a.GPUs/k, a.GPUsUsed/k, a.VCPU/k, a.VCPUUsed/k, a.MemGiB/k, a.MemUsedGiB/k
		out = append(out, *a)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].InstanceType < out[b].InstanceType })
	return out
}
