package store

import (
	"context"
	"database/sql"
	"sync"

	"github.com/taskgov/taskgov/internal/model"
)

// names is the newest task of every name, kept in memory so that the name
// rule (model.CheckNameReuse) costs no query: the engine checks it once per
// submission on its loop (PriorUse), and InsertTask once per insert. It is
// loaded whole on first use and kept current from this store's own commits
// (the engine is the only writer of tasks). The database's unique index on
// live names backs it up.
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

// load reads every name's newest task. Call with n.mu held.
func (n *names) load(q func(string, ...any) (*sql.Rows, error)) error {
	if n.loaded {
		return nil
	}
	rows, err := q(`SELECT name, seq, team, state FROM tasks ORDER BY seq`)
	if err != nil {
		return err
	}
	defer rows.Close()
	m := map[string]nameUse{}
	for rows.Next() {
		var name, team, state string
		var seq int64
		if err := rows.Scan(&name, &seq, &team, &state); err != nil {
			return err
		}
		m[name] = nameUse{seq, team, !model.TaskState(state).Terminal()}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	n.newest, n.loaded = m, true
	return nil
}

func (n *names) invalidate() {
	n.mu.Lock()
	n.loaded, n.newest = false, nil
	n.mu.Unlock()
}

// committed brings the index up to date with a committed transaction's task
// writes.
func (n *names) committed(ws []TaskRecord) {
	if len(ws) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.loaded {
		return
	}
	for _, r := range ws {
		if u, ok := n.newest[r.Name]; ok && u.seq > r.Seq {
			continue // an older task of that name
		}
		n.newest[r.Name] = nameUse{r.Seq, r.Team, !r.State.Terminal()}
	}
}

// PriorUse is the newest task stored under name (nil if none), for
// model.CheckNameReuse before a submission reaches the store.
func (s *Store) PriorUse(ctx context.Context, name string) (*model.PriorUse, error) {
	n := &s.names
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.load(func(q string, args ...any) (*sql.Rows, error) { return s.r.QueryContext(ctx, q, args...) }); err != nil {
		return nil, s.note(err)
	}
	if u, ok := n.newest[name]; ok {
		return &model.PriorUse{Team: u.team, Live: u.live}, nil
	}
	return nil, nil
}

// priorInTx is PriorUse as seen inside a transaction: its own task writes
// first, then the committed index.
func (t *Tx) priorInTx(name string) (*model.PriorUse, error) {
	for i := len(t.tasks) - 1; i >= 0; i-- {
		if r := t.tasks[i]; r.Name == name {
			return &model.PriorUse{Team: r.Team, Live: !r.State.Terminal()}, nil
		}
	}
	n := &t.s.names
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.load(t.tx.Query); err != nil {
		return nil, err
	}
	if u, ok := n.newest[name]; ok {
		return &model.PriorUse{Team: u.team, Live: u.live}, nil
	}
	return nil, nil
}
