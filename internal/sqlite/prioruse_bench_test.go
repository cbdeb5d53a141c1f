package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// BenchmarkPriorUse is the engine's per-submission name check, on its loop,
// over a database of 10,000 tasks. Measured on the 2-vCPU development
// machine: about 55 µs per call as one indexed SQLite read, 2-4 µs from the
// in-memory name index (names.go).
func BenchmarkPriorUse(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	err = s.Commit(context.Background(), func(tx *Tx) error {
		for i := range 10000 {
			name := fmt.Sprintf("task-%05d", i)
			if err := tx.InsertTask(model.TaskRecord{Name: name, Team: "t", Seq: int64(i + 1), State: model.StateSucceeded, SubmittedAt: now,
				Spec: model.TaskSpec{Name: name, Team: "t"}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.PriorUse(ctx, fmt.Sprintf("task-%05d", i%20000)); err != nil {
			b.Fatal(err)
		}
	}
}
