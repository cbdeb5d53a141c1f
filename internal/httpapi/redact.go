package httpapi

import (
	"context"

	"github.com/taskgov/taskgov/internal/apitypes"
	"github.com/taskgov/taskgov/internal/model"
)

// Another team's task must look to a member as if it did not exist, so its
// name is replaced wherever a view would carry it: in preemption messages
// ("preempted (Reclaim) for NAME, ..."), in wait reasons (nodes held for
// NAME), in a node's heldFor and in the topology (model's rules, redact.go).
// Admins and cluster-wide viewers see every name. What is stored is not
// changed: the audit log and admins keep the full story.

// redactor decides, with a cache, which task names a caller may see.
type redactor struct {
	s    *Server
	ctx  context.Context
	p    principal
	seen map[string]bool
}

func (s *Server) redactor(ctx context.Context, p principal) *redactor {
	return &redactor{s: s, ctx: ctx, p: p, seen: map[string]bool{}}
}

// all reports whether the caller sees everything (nothing to redact).
func (rd *redactor) all() bool { return rd.p.readableTeams() == nil }

// visible reports whether the caller may see the task called name.
func (rd *redactor) visible(name string) bool {
	if rd.all() || name == "" {
		return true
	}
	v, ok := rd.seen[name]
	if !ok {
		t, err := rd.s.eng.Task(rd.ctx, name)
		v = err == nil && rd.p.canRead(t.Team)
		rd.seen[name] = v
	}
	return v
}

// name returns name, or a stand-in if the caller may not see it.
func (rd *redactor) name(name string) string {
	if rd.visible(name) {
		return name
	}
	return model.OtherTeamsTask
}

// message hides the task a preemption message names, if need be.
func (rd *redactor) message(msg string) string {
	if rd.all() {
		return msg
	}
	return model.HidePreemptor(msg, rd.visible)
}

// reason hides the task a wait reason names (the holder of nodes), and the
// team whose tasks it waits to preempt if the caller may not read it.
func (rd *redactor) reason(r *model.WaitReason) (changed bool) {
	if rd.all() {
		return false
	}
	return r.Hide(rd.p.canRead, rd.visible)
}

// task redacts a task view in place.
func (rd *redactor) task(v *apitypes.Task) {
	if rd.all() {
		return
	}
	v.Message = rd.message(v.Message)
	if v.Reason != nil {
		reason := *v.Reason
		if rd.reason(&reason) {
			v.Reason, v.Why = &reason, reason.Message()
		}
	}
}

// records redacts task records in place.
func (rd *redactor) records(recs []model.TaskRecord) {
	if rd.all() {
		return
	}
	for i := range recs {
		recs[i].Message = rd.message(recs[i].Message)
	}
}

// events redacts task events in place.
func (rd *redactor) events(evs []model.Event) {
	if rd.all() {
		return
	}
	for i := range evs {
		evs[i].Message = rd.message(evs[i].Message)
	}
}

// topology hides task names in a topology tree, and whom a node is held for.
func (rd *redactor) topology(ds []*model.TopoDomain) {
	if rd.all() {
		return
	}
	for _, d := range ds {
		for i, t := range d.Tasks {
			if !rd.visible(t) {
				d.Tasks[i] = "(other team)"
			}
		}
		if d.HeldFor != "" {
			d.HeldFor = rd.name(d.HeldFor)
		}
		rd.topology(d.Children)
	}
}
