package model

import "sync"

// NameIndex is the newest task of every name, kept in memory by a store
// adapter so that the name rule (CheckNameReuse) costs no query: the engine
// checks it once per submission on its loop, and an insert once more. It is
// loaded whole on first use (and again after Invalidate) and kept current
// from the adapter's own commits. It only speeds the check up: each
// adapter's database enforces the rule too, so a stale entry can make a
// commit fail, never let a wrong task in. Safe for concurrent use.
type NameIndex struct {
	mu     sync.Mutex
	loaded bool
	newest map[string]nameEntry
}

// nameEntry is what the index keeps of a name's newest task: no more than
// CheckNameReuse reads (32 bytes a name, where a whole NameRow took 56).
type nameEntry struct {
	team string
	seq  int64
	live bool
}

// NameRow is one task's name, team, sequence and state, as the index keeps
// it and as adapters load it.
type NameRow struct {
	Name  string
	Team  string
	Seq   int64
	State TaskState
}

// RowOf is a record's NameRow.
func RowOf(r TaskRecord) NameRow { return NameRow{r.Name, r.Team, r.Seq, r.State} }

// Lookup is the newest task stored under name (nil if none). load reads
// every task's row (in any order) when the index is not loaded yet; its
// error is returned as is.
func (n *NameIndex) Lookup(name string, load func() ([]NameRow, error)) (*PriorUse, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.loaded {
		rows, err := load()
		if err != nil {
			return nil, err
		}
		n.newest = make(map[string]nameEntry, len(rows))
		n.loaded = true
		n.add(rows)
	}
	r, ok := n.newest[name]
	if !ok {
		return nil, nil
	}
	return &PriorUse{Team: r.team, Live: r.live}, nil
}

// Committed brings a loaded index up to date with a committed transaction's
// task inserts and updates.
func (n *NameIndex) Committed(rows []NameRow) {
	if len(rows) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.loaded {
		n.add(rows)
	}
}

// Invalidate drops the index; the next Lookup loads it again (after a
// failed commit, or when another writer may have written).
func (n *NameIndex) Invalidate() {
	n.mu.Lock()
	n.loaded, n.newest = false, nil
	n.mu.Unlock()
}

func (n *NameIndex) add(rows []NameRow) {
	for _, r := range rows {
		if u, ok := n.newest[r.Name]; ok && u.seq > r.Seq {
			continue // an older task of that name
		}
		n.newest[r.Name] = nameEntry{team: r.Team, seq: r.Seq, live: !r.State.Terminal()}
	}
}

// RowScanner is what reading rows needs of database/sql's and pgx's rows.
type RowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanNameRows reads rows of (name, seq, team, state), the columns a store
// adapter selects to load the index.
func ScanNameRows(rows RowScanner) ([]NameRow, error) {
	var out []NameRow
	for rows.Next() {
		var r NameRow
		if err := rows.Scan(&r.Name, &r.Seq, &r.Team, &r.State); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
