package postgres

import (
	"context"
	"sync"

	"github.com/taskgov/taskgov/internal/model"
)

// names is the newest task of every name, kept in memory so that the
// engine's check of a submission's name (PriorUse, once per submission, on
// its one loop) costs no round trip. It is loaded whole on first use and
// again after every Fence (a new term: another replica may have written in
// between), and kept current from this store's own commits. It only speeds
// up the engine's check: the insert itself enforces the rule in the
// database (appends.go), so a stale entry can make a commit fail, never let
// a wrong task in.
type names struct {
	mu     sync.Mutex
	loaded bool
	newest map[string]nameUse
}

type nameUse struct {
	seq  int64
	team string
	live bool
}

func (n *names) invalidate() {
	n.mu.Lock()
	n.loaded, n.newest = false, nil
	n.mu.Unlock()
}

// PriorUse is the newest task stored under name (nil if none).
func (s *Store) PriorUse(ctx context.Context, name string) (*model.PriorUse, error) {
	n := &s.names
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.loaded {
		rows, err := s.pool.Query(ctx, `SELECT DISTINCT ON (name) name, seq, team, state FROM tasks ORDER BY name, seq DESC`)
		if err != nil {
			return nil, err
		}
		m := map[string]nameUse{}
		for rows.Next() {
			var name, team, state string
			var seq int64
			if err := rows.Scan(&name, &seq, &team, &state); err != nil {
				rows.Close()
				return nil, err
			}
			m[name] = nameUse{seq, team, !model.TaskState(state).Terminal()}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		n.newest, n.loaded = m, true
	}
	u, ok := n.newest[name]
	if !ok {
		return nil, nil
	}
	return &model.PriorUse{Team: u.team, Live: u.live}, nil
}

// committed brings the names up to date with a transaction's task writes,
// once it has committed.
func (n *names) committed(ws []nameWrite) {
	if len(ws) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.loaded {
		return
	}
	for _, w := range ws {
		if u, ok := n.newest[w.name]; ok && u.seq > w.seq {
			continue // an update of an older task of that name
		}
		n.newest[w.name] = nameUse{w.seq, w.team, !model.TaskState(w.state).Terminal()}
	}
}

// nameWrite is one task insert or update of a transaction.
type nameWrite struct {
	name, team, state string
	seq               int64
}
