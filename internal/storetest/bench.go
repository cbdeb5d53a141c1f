package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/taskgov/taskgov/internal/model"
)

// BenchCommit measures one Commit of a batch of n submissions, as the
// engine writes them (the task, its Submitted event and its audit entry):
// the cost behind each group commit, fsync or flush included.
func BenchCommit[S Store[T], T Tx](b *testing.B, s S, n int) {
	ctx := context.Background()
	now := time.Now().UTC()
	seq := int64(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := s.Commit(ctx, func(tx T) error {
			for j := 0; j < n; j++ {
				seq++
				name := fmt.Sprint("b", seq)
				if err := tx.InsertTask(task(name, seq, now)); err != nil {
					return err
				}
				if err := tx.AddEvent(model.Event{Task: name, TaskSeq: seq, Team: "t", At: now, Kind: "Submitted", Message: "queued"}); err != nil {
					return err
				}
				if err := tx.Audit(model.AuditEntry{At: now, Actor: "u", Action: "task.submit", Team: "t", Target: name, Result: "ok"}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "submissions/s")
}
