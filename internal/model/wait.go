package model

import (
	"fmt"
	"strings"
	"time"

	"github.com/taskgov/taskgov/internal/resource"
)

// WaitCode is the machine-readable reason a task is pending.
type WaitCode string

// The wait codes.
const (
	// QuotaExhausted: the team's quota is used and the team may not borrow.
	QuotaExhausted WaitCode = "QuotaExhausted"
	// BorrowLimit: borrowing this task would exceed the team's borrow limit
	// (Need is the task's request, Used+Need-Limit the team's borrowing
	// with it, Cap the limit).
	BorrowLimit WaitCode = "BorrowLimit"
	// NoIdleCompute: the team would borrow, but not enough idle compute is
	// lendable (Fit of the Nodes it needs can be had, when that is known).
	NoIdleCompute WaitCode = "NoIdleCompute"
	// NoNodes: the cluster has no schedulable node of the instance type.
	NoNodes WaitCode = "NoNodes"
	// NoCapacity: quota allows it, but no set of nodes has room now (Used of
	// Need nodes; At, when set, is when its preemption delay ends).
	NoCapacity WaitCode = "NoCapacity"
	// HeldForOther: free nodes are reserved for a task that waited too long.
	HeldForOther WaitCode = "HeldForOther"
	// Draining: nodes are reserved for this task and are emptying.
	Draining WaitCode = "Draining"
	// QueuedForHold: the task is past the starvation bound, but another task
	// holds nodes of its type; it holds nodes once that one starts.
	QueuedForHold WaitCode = "QueuedForHold"
	// Preempted: the task was stopped in this cycle and is back in its place.
	Preempted WaitCode = "Preempted"
	// NoTopologyFit: quota allows it, but no single domain of the required
	// topology level has room for the whole gang.
	NoTopologyFit WaitCode = "NoTopologyFit"
	// NoMatchingNodes: fewer schedulable nodes of the type than the gang
	// needs carry the labels its nodeSelector asks for (Used of Need; Detail
	// is the selector).
	NoMatchingNodes WaitCode = "NoMatchingNodes"
	// BackingOff: the task failed and waits out its retry backoff (Need
	// seconds from the failure, after Used retries) before it may start again.
	BackingOff WaitCode = "BackingOff"
	// WaitingForPayback: preemption Payback (rule 10) found victims that let
	// the task start, but its wait (its GPUs × seconds) has not yet paid
	// their price, the work they would lose. Detail is the kind of
	// preemption (PaybackReclaim, PaybackPriority, PaybackFairShare, or two
	// joined by " and "), Team the victims' team when they are all of one
	// other team and the reader may see it, Need the price and Used the rent
	// paid (GPU·s, a task without GPUs counted at the GPUs of its node
	// share), Limit the task's GPUs, At (Unix seconds) when the price
	// will be paid, or 0 when it is not fixed (a borrower's victims grow
	// dearer while they run).
	WaitingForPayback WaitCode = "WaitingForPayback"
	// VictimProtected: preemption Immediate (rule 10) would preempt
	// lower-priority tasks of the task's own team to start it, but they
	// already lost their work to priority once and are protected until the
	// task has waited the starvation bound. Detail names them (", "
	// between names; empty when the reader may not see them), Need is how
	// many, At (Unix seconds) when they may be taken (the task will have
	// waited the bound then).
	VictimProtected WaitCode = "VictimProtected"
	// BehindHead: the task's team queues StrictFIFO and a task ahead of it
	// in the team's queue of its instance type, named by Detail, was tried
	// in this evaluation and cannot start; no later task of that queue is
	// tried until it starts or leaves the queue (SCHEDULING.md rule 3).
	BehindHead WaitCode = "BehindHead"
)

// The kinds of preemption a WaitingForPayback reason names (its Detail).
const (
	PaybackReclaim   = "reclaim"
	PaybackPriority  = "priority"
	PaybackFairShare = "fair share"
)

// DetailLendingLimit is a NoIdleCompute reason's Detail when a team of the
// task's group keeps part of its quota of the type by a lending limit.
const DetailLendingLimit = "lendingLimit"

// WaitReason carries the numbers behind a wait so that the sentence can be
// rendered on demand rather than in the scheduling loop.
type WaitReason struct {
	Code         WaitCode      `json:"code"`
	InstanceType string        `json:"instanceType,omitempty"`
	Kind         resource.Kind `json:"-"`
	// Used, Limit and Need are amounts of Kind (or node counts for NoCapacity).
	Used  int64 `json:"used,omitempty"`
	Limit int64 `json:"limit,omitempty"`
	Need  int64 `json:"need,omitempty"`
	// Cap is the borrow limit, for BorrowLimit.
	Cap int64 `json:"cap,omitempty"`
	// Detail is the team's lending strategy, the task holding a reservation,
	// the kind of preemption awaited, the protected tasks awaited, or
	// DetailLendingLimit.
	Detail string `json:"detail,omitempty"`
	// Team is the team of the victims a WaitingForPayback task will
	// preempt; empty when they are its own, of several teams, or of a team
	// the reader may not see.
	Team string `json:"team,omitempty"`
	// At is when a WaitingForPayback task's wait will have paid, or when a
	// VictimProtected task's victims may be taken, or when the preemption
	// delay of a NoCapacity task, or of a QuotaExhausted, BorrowLimit,
	// NoIdleCompute or NoTopologyFit task that may preempt once it is over,
	// ends (Unix seconds); 0 when that is not known or does not apply.
	At int64 `json:"at,omitempty"`
	// Ahead: a WaitingForPayback task within its quota, which preempts at
	// the cost-clock tick (a whole minute) from which its wait will have
	// paid Need by the next tick, not once it has (SCHEDULING.md rule 10).
	Ahead bool `json:"ahead,omitempty"`
	// Nodes and Fit, for NoIdleCompute: the nodes the task needs, and how
	// many of them its quota and the idle compute it may borrow would hold
	// now (0 when none or not known). The core fills them when it lists the
	// reason, not when it records it (Scheduler.Waiting). int32, after
	// Ahead, so that they take the padding and 8 bytes more, not 16.
	Nodes int32 `json:"nodes,omitempty"`
	Fit   int32 `json:"fit,omitempty"`
}

// Waiting is one pending task's place and reason.
type Waiting struct {
	Task     string     `json:"task"`
	Team     string     `json:"team"`
	Position int        `json:"position"`
	Reason   WaitReason `json:"reason"`
}

// Message is the sentence a data scientist reads; a quota or topology
// refusal within the preemption delay (At set) says when the delay ends.
func (r WaitReason) Message() string {
	msg := r.message()
	switch r.Code {
	case QuotaExhausted, BorrowLimit, NoIdleCompute, NoTopologyFit, NoCapacity:
		if r.At > 0 {
			msg += "; its preemption delay (preemptionDelaySeconds) ends at " +
				time.Unix(r.At, 0).UTC().Format("2006-01-02 15:04:05 UTC") + ", and then it may preempt other tasks for room"
		}
	}
	return msg
}

func (r WaitReason) message() string {
	f := func(x int64) string { return resource.Format(r.Kind, x) }
	// ratio renders "used/limit unit", e.g. "16/16 GPUs".
	ratio := func(used, limit int64) string {
		l := f(limit)
		if sp := strings.IndexByte(l, ' '); sp > 0 && used != resource.Unlimited {
			u := f(used)
			if usp := strings.IndexByte(u, ' '); usp > 0 && u[usp:] == l[sp:] {
				return u[:usp] + "/" + l
			}
		}
		return f(used) + " of " + l
	}
	switch r.Code {
	case QuotaExhausted:
		return fmt.Sprintf("waiting: team quota for %s is used (%s, task needs %s) and lending strategy %s does not borrow",
			r.InstanceType, ratio(r.Used, r.Limit), f(r.Need), r.Detail)
	case BorrowLimit:
		// The team's borrowing with the task: what it borrows now, plus
		// the part of the task its quota does not hold.
		would := fmt.Sprintf("would make the team borrow %s, above its borrow limit of %s", f(r.Used+r.Need-r.Limit), f(r.Cap))
		if r.Used < r.Limit {
			return fmt.Sprintf("waiting: the task needs %s of %s and the team has %s of its quota left (%s used); running it %s",
				f(r.Need), r.InstanceType, f(r.Limit-r.Used), ratio(r.Used, r.Limit), would)
		}
		return fmt.Sprintf("waiting: team quota for %s is used (%s); running it (%s) %s",
			r.InstanceType, ratio(r.Used, r.Limit), f(r.Need), would)
	case NoIdleCompute:
		var limits string
		if r.Detail == DetailLendingLimit {
			limits = " (some teams of its group lend only up to a lending limit)"
		}
		none := "no idle compute can be borrowed"
		if r.Fit > 0 && r.Fit < r.Nodes {
			none = fmt.Sprintf("only %d of the %d nodes it needs can be borrowed", r.Fit, r.Nodes)
		}
		if r.Used > r.Limit {
			if r.Fit == 0 {
				none = "no more idle compute can be borrowed"
			}
			return fmt.Sprintf("waiting: team already borrows beyond its quota for %s (%s used) and %s%s",
				r.InstanceType, ratio(r.Used, r.Limit), none, limits)
		}
		if r.Used == r.Limit {
			return fmt.Sprintf("waiting: team quota for %s is used (%s) and %s%s",
				r.InstanceType, ratio(r.Used, r.Limit), none, limits)
		}
		if r.Fit > 0 && r.Fit < r.Nodes {
			none = fmt.Sprintf("with what can be borrowed only %d of the %d nodes it needs fit", r.Fit, r.Nodes)
		}
		return fmt.Sprintf("waiting: the task needs %s of %s, the team has %s of its quota left (%s used), and %s%s",
			f(r.Need), r.InstanceType, f(r.Limit-r.Used), ratio(r.Used, r.Limit), none, limits)
	case NoNodes:
		return fmt.Sprintf("waiting: the cluster has no schedulable %s nodes", r.InstanceType)
	case NoMatchingNodes:
		return fmt.Sprintf("waiting: %d schedulable %s nodes carry the labels its nodeSelector asks for (%s) and it needs %d; label nodes that qualify (kubectl label node NODE KEY=VALUE), or change the nodeSelector",
			r.Used, r.InstanceType, r.Detail, r.Need)
	case NoCapacity:
		return fmt.Sprintf("waiting: quota allows it, but only %d of the %d %s nodes it needs have room now",
			r.Used, r.Need, r.InstanceType)
	case HeldForOther:
		return fmt.Sprintf("waiting: free %s nodes are held for %s, which has waited past the starvation bound",
			r.InstanceType, heldFor(r.Detail))
	case Draining:
		held := fmt.Sprintf("%d %s nodes are", r.Need, r.InstanceType)
		if r.Need == 1 {
			held = fmt.Sprintf("1 %s node is", r.InstanceType)
		}
		busy := fmt.Sprintf("%d of them are", r.Used)
		if r.Need == 1 {
			busy = "it is"
		} else if r.Used == 1 {
			busy = "1 of them is"
		}
		if r.Used == 0 {
			return fmt.Sprintf("waiting: %s reserved for this task", held)
		}
		return fmt.Sprintf("waiting: %s reserved for this task; %s still busy", held, busy)
	case QueuedForHold:
		return fmt.Sprintf("waiting: past the starvation bound; %s nodes are held for %s (one task holds at a time), and this task holds nodes once it starts",
			r.InstanceType, heldFor(r.Detail))
	case NoTopologyFit:
		return fmt.Sprintf("waiting: no single %s domain has %d free %s nodes (largest has %d)",
			r.Detail, r.Need, r.InstanceType, r.Used)
	case BackingOff:
		return fmt.Sprintf("waiting: failed, and retry %d starts no sooner than %d s after the failure (retries back off: 1 s, doubling, at most 5 min)", r.Used, r.Need)
	case WaitingForPayback:
		return paybackMessage(r)
	case VictimProtected:
		return protectedMessage(r)
	case BehindHead:
		ahead := "a task ahead of it"
		if r.Detail != "" {
			ahead = r.Detail + ", ahead of it,"
		}
		return fmt.Sprintf("waiting: its team queues StrictFIFO, and %s cannot start yet; no later %s task of the team starts before it",
			ahead, r.InstanceType)
	case Preempted:
		return "waiting: preempted in this cycle; requeued in its original place and will resume from its last checkpoint"
	}
	return "waiting: " + string(r.Code)
}

// paybackMessage renders a WaitingForPayback reason.
func paybackMessage(r WaitReason) string {
	whose := "lower-priority tasks of its own team"
	switch {
	case r.Detail == PaybackPriority:
	case r.Team != "" && strings.HasPrefix(r.Detail, PaybackPriority):
		whose = "lower-priority tasks of its own team and tasks team " + r.Team + " borrows"
	case strings.HasPrefix(r.Detail, PaybackPriority):
		whose = "lower-priority tasks of its own team and borrowed tasks of another team"
	case r.Team != "":
		whose = "tasks team " + r.Team + " borrows"
	default:
		whose = "borrowed tasks of other teams"
	}
	gpus := "GPUs"
	if r.Limit == 1 {
		gpus = "GPU"
	}
	rate := fmt.Sprintf("at %d %s", r.Limit, gpus)
	if r.Limit == 0 {
		rate = "at the GPUs of its share of a node" // a task without GPUs (rule 10's weight)
	}
	when := "once its wait has paid"
	if r.Ahead {
		when = "in the minute before its wait has paid"
	}
	msg := fmt.Sprintf("waiting: will preempt (%s) %s on %s %s the work they would lose (%d GPU·s; %d paid so far %s)",
		r.Detail, whose, r.InstanceType, when, r.Need, r.Used, rate)
	if r.At > 0 {
		msg += ", at about " + time.Unix(r.At, 0).UTC().Format("2006-01-02 15:04 UTC")
	}
	return msg
}

// protectedMessage renders a VictimProtected reason.
func protectedMessage(r WaitReason) string {
	task, it, lost, is := "task", "it", "its work", "is"
	if r.Need > 1 {
		task, it, lost, is = "tasks", "they", "their work", "are"
	}
	whose := "a lower-priority task of its own team"
	if r.Need > 1 {
		whose = "lower-priority tasks of its own team"
	}
	if r.Detail != "" {
		whose = "lower-priority " + task + " " + r.Detail + " of its own team"
	}
	msg := fmt.Sprintf("waiting: will preempt %s on %s, but %s already lost %s to priority once and %s protected until this task has waited the starvation bound (preemption Immediate)",
		whose, r.InstanceType, it, lost, is)
	if r.At > 0 {
		msg += fmt.Sprintf("; %s can be taken at %s", it, time.Unix(r.At, 0).UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	return msg
}

// heldFor names the task nodes are held for; an empty name is another
// team's task, hidden from the reader.
func heldFor(task string) string {
	if task == "" {
		return "another team's task"
	}
	return "task " + task
}
