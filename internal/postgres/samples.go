package postgres

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// AddSamples stores samples at a resolution (seconds per point); a sample
// of the same resolution, time and instance type is replaced.
func (s *Store) AddSamples(ctx context.Context, resolution time.Duration, ss []model.Sample) error {
	return s.Commit(ctx, func(tx *Tx) error {
		for _, x := range ss {
			tx.exec(`INSERT INTO samples VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
				ON CONFLICT (resolution, at, instance_type) DO UPDATE SET gpus=excluded.gpus, gpus_used=excluded.gpus_used,
				vcpu=excluded.vcpu, vcpu_used=excluded.vcpu_used, mem_gib=excluded.mem_gib, mem_used_gib=excluded.mem_used_gib`,
				int64(resolution.Seconds()), sqlrow.Nanos(x.At), x.InstanceType, x.GPUs, x.GPUsUsed, x.VCPU, x.VCPUUsed, x.MemGiB, x.MemUsedGiB)
		}
		return nil
	})
}

// Samples returns the samples of a resolution since from, oldest first.
func (s *Store) Samples(ctx context.Context, resolution time.Duration, from time.Time) ([]model.Sample, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+sqlrow.SampleColumns+`
		FROM samples WHERE resolution = $1 AND at >= $2 ORDER BY at, instance_type`, int64(resolution.Seconds()), sqlrow.Nanos(from))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Sample)
}

// PruneSamples deletes samples of a resolution older than before.
func (s *Store) PruneSamples(ctx context.Context, resolution time.Duration, before time.Time) error {
	return s.Commit(ctx, func(tx *Tx) error {
		tx.exec(`DELETE FROM samples WHERE resolution = $1 AND at < $2`, int64(resolution.Seconds()), sqlrow.Nanos(before))
		return nil
	})
}
