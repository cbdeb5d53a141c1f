package sim

import "strconv"

// GuaranteeWhy splits fairness.guarantee_violation_gpu_s by the tasks that
// make it (Options.WaitReasons): at each moment a team's violation of a type,
// min(fit, room, lent), is shared among its pending tasks that fit inside its
// room, in proportion to their GPUs, and each share is counted under that
// task's wait reason (as the last cycle recorded it), its GPUs, and how long
// it had been queued. So each map adds up to the violation (up to the part
// of pending tasks the core does not list, Unlisted).
type GuaranteeWhy struct {
	// ByReason: GPU·s by wait reason, then by the task's GPUs ("8", "128").
	ByReason map[string]map[string]float64 `json:"by_reason"`
	// ByQueued: GPU·s by wait reason, then by how long the task had been
	// queued at that moment (since its submission or last preemption):
	// "<1m", "1-5m", "5-30m", "30m-2h", ">2h".
	ByQueued map[string]map[string]float64 `json:"by_queued"`
	Unlisted float64                       `json:"unlisted_gpu_s"`
}

// teamViolation is one team's part of a type's violation now.
type teamViolation struct {
	v, room float64
}

// byTeam is each (type, team) violated now and by how much: the terms of
// violated's sum.
func (g *guaranteeMeter) byTeam() map[[2]string]teamViolation {
	out := map[[2]string]teamViolation{}
	g.eachViolation(func(typ, team string, v, room float64) {
		out[[2]string{typ, team}] = teamViolation{v: v, room: room}
	})
	return out
}

// queuedBucket names how long a task has been queued.
func queuedBucket(s float64) string {
	switch {
	case s < 60:
		return "<1m"
	case s < 300:
		return "1-5m"
	case s < 1800:
		return "5-30m"
	case s < 7200:
		return "30m-2h"
	}
	return ">2h"
}

// attribute adds the violation over [from, to) to why, task by task.
func (c *reasonClock) attribute(g *guaranteeMeter, from, to float64) {
	if c == nil || to <= from || g.violated() <= 0 {
		return
	}
	dt := to - from
	teams := g.byTeam()
	fit := map[[2]string]float64{}
	for _, w := range c.last {
		if j := c.byName[w.Task]; j != nil {
			k := [2]string{j.InstanceType, j.Team}
			if tv, ok := teams[k]; ok && j.gpus > 0 && float64(j.gpus) <= tv.room {
				fit[k] += float64(j.gpus)
			}
		}
	}
	if c.why.ByReason == nil {
		c.why.ByReason, c.why.ByQueued = map[string]map[string]float64{}, map[string]map[string]float64{}
	}
	add := func(m map[string]map[string]float64, a, b string, x float64) {
		if m[a] == nil {
			m[a] = map[string]float64{}
		}
		m[a][b] += x
	}
	for _, w := range c.last {
		j := c.byName[w.Task]
		if j == nil {
			continue
		}
		k := [2]string{j.InstanceType, j.Team}
		tv, ok := teams[k]
		if !ok || j.gpus <= 0 || float64(j.gpus) > tv.room {
			continue
		}
		x := tv.v * float64(j.gpus) / fit[k] * dt
		r := reasonKey(w.Reason)
		add(c.why.ByReason, r, strconv.FormatInt(j.gpus, 10), x)
		add(c.why.ByQueued, r, queuedBucket(from-j.queuedAt), x)
	}
	for k, tv := range teams {
		if fit[k] == 0 {
			c.why.Unlisted += tv.v * dt
		}
	}
}
