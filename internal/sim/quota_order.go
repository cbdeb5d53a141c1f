package sim

import "github.com/taskgov/taskgov/internal/model"

// Where a job stood against its team's quota when it was submitted
// (report.json's wait_by_quota_order, Options.WaitReasons).
const (
	qoFits       = "fits quota"                // the team's usage of the type plus the job fits its quota
	qoClassOrder = "fits quota in class order" // it does not, but the team's usage by jobs of its class or higher plus the job does
	qoOver       = "over quota in class order" // not even then
)

// QuotaOrderStat is the first wait (to the first admission) of the jobs
// of one class in one standing.
type QuotaOrderStat struct {
	Jobs      int     `json:"jobs"`
	WaitMeanS float64 `json:"wait_mean_s"`
	// PerJobOfClassS is their waits summed ÷ the class's jobs: what they
	// add to the class's mean wait (the standings add up to it).
	PerJobOfClassS float64 `json:"wait_s_per_job_of_class"`
}

// quotaOrder is where j stands against its team's quota of its type, with
// running the jobs running now: a job that would fit but for its own
// team's lower-class work waits as a borrower (rules 1 and 2 count a
// team's usage in the order its tasks started, not by class).
func quotaOrder(j *job, running map[string]*job, quota float64, weight map[string]int) string {
	var used, higher int64
	for _, r := range running {
		if r.Team != j.Team || r.InstanceType != j.InstanceType {
			continue
		}
		used += r.gpus
		if weight[r.Priority] >= weight[j.Priority] {
			higher += r.gpus
		}
	}
	switch {
	case float64(used+j.gpus) <= quota:
		return qoFits
	case float64(higher+j.gpus) <= quota:
		return qoClassOrder
	}
	return qoOver
}

// classWeights maps each priority class to its weight (0 for none).
func classWeights(p model.Policy) map[string]int {
	out := map[string]int{}
	for _, c := range p.PriorityClasses {
		out[c.Name] = c.Weight
	}
	return out
}

// waitByQuotaOrder groups the started jobs' first waits by class and
// standing.
func waitByQuotaOrder(jobs []*job) map[string]map[string]*QuotaOrderStat {
	out := map[string]map[string]*QuotaOrderStat{}
	n := map[string]int{}
	for _, j := range jobs {
		if j.started < 0 || j.quotaOrder == "" {
			continue
		}
		n[j.Priority]++
		if out[j.Priority] == nil {
			out[j.Priority] = map[string]*QuotaOrderStat{}
		}
		st := out[j.Priority][j.quotaOrder]
		if st == nil {
			st = &QuotaOrderStat{}
			out[j.Priority][j.quotaOrder] = st
		}
		st.Jobs++
		st.WaitMeanS += j.started - j.SubmitS // a sum until the end
	}
	for class, m := range out {
		for _, st := range m {
			st.PerJobOfClassS = st.WaitMeanS / float64(n[class])
			st.WaitMeanS /= float64(st.Jobs)
		}
	}
	return out
}
