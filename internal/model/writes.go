package model

import "time"

// Write is one change in a batch, as data: exactly one field is set. The
// engine hands a store adapter a batch of them to commit in one transaction
// (the shape of raft's Ready: a decision counts only once persisted), so a
// fake store can take the same batch as SQLite or PostgreSQL.
type Write struct {
	InsertTask    *TaskRecord
	UpdateTask    *TaskRecord
	Event         *Event
	Audit         *AuditEntry
	Cluster       *Cluster
	StartRun      *Run
	EndRun        *RunEnd
	CloseOpenRuns *RunEnd // Task is empty; Keep lists tasks whose runs go on
	Preemption    *PreemptionRecord
	// RevokeTeamTokens revokes a deleted team's live tokens, each audited,
	// in the same transaction as the deletion.
	RevokeTeamTokens *TeamTokens
	Heartbeat        time.Time
}

// RunEnd closes a task's open run (EndRun) or every open run but those of
// Keep (CloseOpenRuns).
type RunEnd struct {
	Task    string
	At      time.Time
	Outcome string
	Keep    map[string]bool
}

// TeamTokens names the tokens of Team, revoked At by Actor.
type TeamTokens struct {
	Team, Actor string
	At          time.Time
}

// TxWriter is an adapter's open write transaction.
type TxWriter interface {
	InsertTask(TaskRecord) error
	UpdateTask(TaskRecord) error
	AddEvent(Event) error
	Audit(AuditEntry) error
	PutCluster(Cluster) error
	StartRun(Run) error
	EndRun(task string, at time.Time, outcome string) error
	CloseOpenRuns(at time.Time, outcome string, keep map[string]bool) (int64, error)
	// RevokeTeamTokens revokes team's live tokens and returns their ids.
	RevokeTeamTokens(team string, at time.Time) ([]string, error)
	Heartbeat(at time.Time) error
	AddPreemption(PreemptionRecord) error
}

// ApplyTo makes a batch's writes, in order, in an open transaction, and
// stops at the first error (the caller then rolls the transaction back).
func ApplyTo(t TxWriter, ws []Write) error {
	for i := range ws {
		if err := applyOne(t, &ws[i]); err != nil {
			return err
		}
	}
	return nil
}

func applyOne(t TxWriter, w *Write) error {
	switch {
	case w.InsertTask != nil:
		return t.InsertTask(*w.InsertTask)
	case w.UpdateTask != nil:
		return t.UpdateTask(*w.UpdateTask)
	case w.Event != nil:
		return t.AddEvent(*w.Event)
	case w.Audit != nil:
		return t.Audit(*w.Audit)
	case w.Cluster != nil:
		return t.PutCluster(*w.Cluster)
	case w.StartRun != nil:
		return t.StartRun(*w.StartRun)
	case w.EndRun != nil:
		return t.EndRun(w.EndRun.Task, w.EndRun.At, w.EndRun.Outcome)
	case w.CloseOpenRuns != nil:
		_, err := t.CloseOpenRuns(w.CloseOpenRuns.At, w.CloseOpenRuns.Outcome, w.CloseOpenRuns.Keep)
		return err
	case w.Preemption != nil:
		return t.AddPreemption(*w.Preemption)
	case w.RevokeTeamTokens != nil:
		r := w.RevokeTeamTokens
		ids, err := t.RevokeTeamTokens(r.Team, r.At)
		for _, id := range ids {
			if err == nil {
				err = t.Audit(AuditEntry{At: r.At, Actor: r.Actor, Action: "token.revoke", Team: r.Team, Target: id, Result: "team deleted"})
			}
		}
		return err
	case !w.Heartbeat.IsZero():
		return t.Heartbeat(w.Heartbeat)
	}
	return nil
}
