package sqlite

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/sqlrow"
)

// AddSamples stores samples at a resolution (seconds per point).
func (s *Store) AddSamples(ctx context.Context, resolution time.Duration, ss []model.Sample) error {
	return s.Commit(ctx, func(tx *Tx) error {
		for _, x := range ss {
			if _, err := tx.tx.Exec(`INSERT OR REPLACE INTO samples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, int64(resolution.Seconds()),
				sqlrow.Nanos(x.At), x.InstanceType, x.GPUs, x.GPUsUsed, x.VCPU, x.VCPUUsed, x.MemGiB, x.MemUsedGiB); err != nil {
				return err
			}
		}
		return nil
	})
}

// Samples returns the samples of a resolution since from, oldest first.
func (s *Store) Samples(ctx context.Context, resolution time.Duration, from time.Time) ([]model.Sample, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sqlrow.SampleColumns+`
		FROM samples WHERE resolution = ? AND at >= ? ORDER BY at, instance_type`, int64(resolution.Seconds()), sqlrow.Nanos(from))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlrow.All(rows, sqlrow.Sample)
}

// PruneSamples deletes samples of a resolution older than before.
func (s *Store) PruneSamples(ctx context.Context, resolution time.Duration, before time.Time) error {
	return s.Commit(ctx, func(tx *Tx) error {
		_, err := tx.tx.Exec(`DELETE FROM samples WHERE resolution = ? AND at < ?`, int64(resolution.Seconds()), sqlrow.Nanos(before))
		return err
	})
}
