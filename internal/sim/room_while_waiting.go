package sim

import (
	"github.com/taskgov/taskgov/internal/model"
)

// Who took the GPUs admitted while a followed task waited
// (report.json's room_while_waiting, Options.WaitReasons).
const (
	rwOwnWithin   = "within quota, the waiter's team, same or higher class" // the part of an admission inside its team's quota
	rwOwnLower    = "within quota, the waiter's team, lower class"
	rwOtherWithin = "within quota, other team"
	rwOwnBorrower = "borrowed, the waiter's team"        // the part beyond the quota
	rwHigher      = "borrowed, other team, higher class" // than the waiter's class
	rwSame        = "borrowed, other team, same class"
	rwLower       = "borrowed, other team, lower class"
)

// The waits followed: a task within its quota waiting out rule 10's
// payback before it reclaims (the guarantee's violation), and a task that
// fits its team's quota in class order waiting for idle compute to borrow
// (the class gap: quota_order.go).
const (
	rwReclaim    = "WaitingForPayback(reclaim)"
	rwClassOrder = "NoIdleCompute, fits quota in class order"
)

// RoomStat is the GPUs admitted on a followed task's instance type in the
// cycles that left it waiting, summed over every such task and cycle (an
// admission counts once per task it passed), by who took them.
type RoomStat struct {
	// WaiterCycles: the (task, cycle) pairs counted, cycles that admitted
	// nothing on the task's type included.
	WaiterCycles int `json:"waiter_cycles"`
	// GPUs: the admitted GPUs by who took them (rwOwnWithin, ...).
	GPUs map[string]float64 `json:"gpus"`
}

// roomWhileWaiting adds, after each cycle, what the cycle admitted to the
// followed tasks it left waiting. It reads the decision and the waiting
// list only, so it decides nothing.
type roomWhileWaiting struct {
	weights map[string]int
	out     map[string]*RoomStat
}

// followed names the wait w's job is in, or "" for a wait not followed.
func (r *roomWhileWaiting) followed(w model.Waiting, j *job) string {
	switch key := reasonKey(w.Reason); {
	case key == rwReclaim:
		return rwReclaim
	case key == string(model.NoIdleCompute) && j.quotaOrder == qoClassOrder:
		return rwClassOrder
	}
	return ""
}

// after reads one cycle: its admissions and the waiting list it left.
func (r *roomWhileWaiting) after(admissions []model.Admission, waiting []model.Waiting, byName map[string]*job) {
	if r.out == nil {
		r.out = map[string]*RoomStat{}
	}
	for _, w := range waiting {
		j := byName[w.Task]
		if j == nil {
			continue
		}
		key := r.followed(w, j)
		if key == "" {
			continue
		}
		st := r.out[key]
		if st == nil {
			st = &RoomStat{GPUs: map[string]float64{}}
			r.out[key] = st
		}
		st.WaiterCycles++
		for _, a := range admissions {
			taker := byName[a.Task]
			if taker == nil || a.InstanceType != j.InstanceType {
				continue
			}
			borrowed := float64(min(a.BorrowedGPUs, taker.gpus))
			switch within := float64(taker.gpus) - borrowed; {
			case within <= 0:
			case taker.Team == j.Team && r.weights[taker.Priority] < r.weights[j.Priority]:
				st.GPUs[rwOwnLower] += within
			case taker.Team == j.Team:
				st.GPUs[rwOwnWithin] += within
			default:
				st.GPUs[rwOtherWithin] += within
			}
			if borrowed > 0 {
				st.GPUs[r.borrower(j, taker)] += borrowed
			}
		}
	}
}

// borrower names the bucket of a borrowing taker, as seen by waiter j.
func (r *roomWhileWaiting) borrower(j, taker *job) string {
	wj, wt := r.weights[j.Priority], r.weights[taker.Priority]
	switch {
	case taker.Team == j.Team:
		return rwOwnBorrower
	case wt > wj:
		return rwHigher
	case wt == wj:
		return rwSame
	}
	return rwLower
}
