package core

// weight is what one second of t's run counts for on the cost clock (rule
// 10: victims' lost work, their cheapness, the payback's price and rent), in
// GPUs: a task's GPUs; for a task without GPUs, the GPUs of the share of a
// node it takes (its dominant share of a node's vCPU and memory, times the
// node's GPUs and its node count). On an instance type without GPUs one
// unit is a whole node. So a CPU-only task is neither a free victim (its
// lost work counted as nothing, it was always cheap and always taken first)
// nor a preemptor that pays nothing and so preempts at once; and a weight
// stays comparable across the tasks of one instance type, the only ones
// that meet in a victim search. For a task with GPUs it is its GPUs, as
// before, so GPU-only workloads decide as they did.
func (s *Scheduler) weight(t *task) float64 {
	if t.total.GPUs > 0 {
		return float64(t.total.GPUs)
	}
	c := t.typ.capacity
	share := 0.0
	if c.MilliCPU > 0 {
		share = float64(t.pod.MilliCPU) / float64(c.MilliCPU)
	}
	if c.MemMiB > 0 {
		share = max(share, float64(t.pod.MemMiB)/float64(c.MemMiB))
	}
	per := float64(max(c.GPUs, 1))
	return share * per * float64(t.spec.Nodes)
}
