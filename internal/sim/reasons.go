package sim

import (
	"sort"
	"strconv"
	"strings"

	"github.com/taskgov/taskgov/internal/core"
	"github.com/taskgov/taskgov/internal/model"
)

// reasonClock attributes each pending job's time to the wait reason the
// last cycle recorded for it (Options.WaitReasons): where a class's mean
// wait goes. It reads the core's waiting list after every cycle, which costs
// the whole queue each time, so it is off unless asked for.
type reasonClock struct {
	s      *core.Scheduler
	byName map[string]*job
	last   []model.Waiting
	why    GuaranteeWhy // the guarantee's violation by the tasks that make it
}

// reasonKey names a reason: its code, and for WaitingForPayback the kind
// of preemption waited for (priority, reclaim, fair share).
func reasonKey(r model.WaitReason) string {
	if r.Code == model.WaitingForPayback && r.Detail != "" {
		return string(r.Code) + "(" + r.Detail + ")"
	}
	return string(r.Code)
}

// advance counts the time from..to to each job pending since the last cycle.
func (c *reasonClock) advance(from, to float64) {
	if c == nil || to <= from {
		return
	}
	for _, w := range c.last {
		j := c.byName[w.Task]
		if j == nil {
			continue
		}
		if j.reasonS == nil {
			j.reasonS = map[string]float64{}
		}
		j.reasonS[reasonKey(w.Reason)] += to - from
	}
}

// after reads the reasons the cycle just run recorded.
func (c *reasonClock) after() {
	if c != nil {
		c.last = c.s.Waiting()
	}
}

// reasonsByClass is each class's pending time by reason, in seconds per
// job of the class (so a class's reasons add up to its mean time pending).
func reasonsByClass(jobs []*job) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	n := map[string]int{}
	for _, j := range jobs {
		if !j.submitted {
			continue
		}
		p := j.Priority
		if p == "" {
			p = "(none)"
		}
		n[p]++
		if out[p] == nil {
			out[p] = map[string]float64{}
		}
		for k, v := range j.reasonS {
			out[p][k] += v
		}
	}
	for p, m := range out {
		for k := range m {
			m[k] /= float64(n[p])
		}
	}
	return out
}

// formatReasons renders a job's reasons as "code=seconds;…", by code.
func formatReasons(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(k + "=" + strconv.FormatFloat(m[k], 'f', -1, 64))
	}
	return b.String()
}
