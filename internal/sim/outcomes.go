package sim

import (
	"encoding/csv"
	"io"
	"strconv"
)

// Outcome is one job's life in a replay: what `sim run --out` writes to
// jobs.csv, so that a class's mean wait can be traced to the jobs that make
// it. Times are seconds from the trace's start; FirstAdmitS, LastAdmitS
// and FinishS are -1 when it never happened.
type Outcome struct {
	Name, Team, Priority, InstanceType string
	Nodes                              int
	GPUs                               int64
	SubmitS, DurationS                 float64
	FirstAdmitS, LastAdmitS, FinishS   float64
	Preemptions                        int
	// QueuedS is every wait added up, to the last admission (wait_queued_total).
	QueuedS float64
	// WaitByReason is the time pending by wait reason (Options.WaitReasons).
	WaitByReason map[string]float64
}

func outcomes(jobs []*job) []Outcome {
	out := make([]Outcome, 0, len(jobs))
	for _, j := range jobs {
		if !j.submitted {
			continue
		}
		last := j.lastAdmit
		if j.started < 0 {
			last = -1
		}
		out = append(out, Outcome{Name: j.Name, Team: j.Team, Priority: j.Priority, InstanceType: j.InstanceType,
			Nodes: j.Nodes, GPUs: j.gpus, SubmitS: j.SubmitS, DurationS: j.DurationS,
			FirstAdmitS: j.started, LastAdmitS: last, FinishS: j.finished, Preemptions: j.resumes, QueuedS: j.queuedS, WaitByReason: j.reasonS})
	}
	return out
}

// WriteOutcomesCSV writes one row per job, in submission order, with its
// wait to the first admission (-1 if never admitted) and, with
// Options.WaitReasons, its time pending by reason ("code=seconds;…").
func WriteOutcomesCSV(w io.Writer, rows []Outcome) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"name", "team", "priority", "instance_type", "nodes", "gpus", "submit_s", "duration_s",
		"wait_s", "first_admit_s", "last_admit_s", "finish_s", "preemptions", "queued_s", "wait_by_reason"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for _, o := range rows {
		wait := -1.0
		if o.FirstAdmitS >= 0 {
			wait = o.FirstAdmitS - o.SubmitS
		}
		_ = cw.Write([]string{o.Name, o.Team, o.Priority, o.InstanceType, strconv.Itoa(o.Nodes), strconv.FormatInt(o.GPUs, 10),
			f(o.SubmitS), f(o.DurationS), f(wait), f(o.FirstAdmitS), f(o.LastAdmitS), f(o.FinishS), strconv.Itoa(o.Preemptions),
			f(o.QueuedS), formatReasons(o.WaitByReason)})
	}
	cw.Flush()
	return cw.Error()
}
