package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// unsettled are the database backends of commits whose outcome is unknown:
// the connection was cut (a timeout) after the batch, COMMIT included, may
// have been sent. Such a backend may still apply that COMMIT once the
// database goes on (a paused host), after a reread on another connection.
// The reads the engine rebuilds from (Cluster, LiveTasks, MaxSeq) wait
// first until each has finished (settle), so that a rebuilt state never
// misses a commit that lands later: it missed one, and the next submission
// took the same sequence number (duplicate key tasks_seq_key).
type unsettled struct {
	mu   sync.Mutex
	pids []uint32
}

func (u *unsettled) add(pid uint32) {
	if pid == 0 {
		return
	}
	u.mu.Lock()
	u.pids = append(u.pids, pid)
	u.mu.Unlock()
}

// settlePoll is how often settle looks at a backend that is still busy.
const settlePoll = 20 * time.Millisecond

// settle waits until no backend of an unknown commit is busy in a
// transaction or a statement: gone, or idle (a later connection that reused
// its process id; another role's process shows no state and is not waited
// for). It fails with ctx, and
// the reread then fails as the database does (the engine retries it).
// The first call waits for other sessions' transactions first
// (waitForOthers): an earlier process's unknown commits are not in pids.
func (s *Store) settle(ctx context.Context) error {
	if err := s.waitForOthers(ctx); err != nil {
		return err
	}
	s.unknown.mu.Lock()
	pids := append([]uint32(nil), s.unknown.pids...)
	s.unknown.mu.Unlock()
	for _, pid := range pids {
		for {
			var busy bool
			err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1
				AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)', 'fastpath function call'))`,
				int32(pid)).Scan(&busy)
			if err != nil {
				return fmt.Errorf("waiting for a commit of unknown outcome (backend %d) to finish: %w", pid, err)
			}
			if !busy {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for a commit of unknown outcome (backend %d) to finish: %w", pid, ctx.Err())
			case <-time.After(settlePoll):
			}
		}
		s.unknown.mu.Lock()
		for i, p := range s.unknown.pids {
			if p == pid {
				s.unknown.pids = append(s.unknown.pids[:i], s.unknown.pids[i+1:]...)
				break
			}
		}
		s.unknown.mu.Unlock()
	}
	return nil
}
