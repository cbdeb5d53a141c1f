package httpapi

import (
	"context"
	"time"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/trends"
)

// withRecentFine completes hourly (coarse) samples with the hours not yet
// downsampled: the fine samples after the last coarse hour (or after from,
// when there is none yet), averaged per hour as downsampling will average
// them. Without it, a week's trend read "no samples" during a server's
// first hour while the hour's trend had points.
func (s *Server) withRecentFine(ctx context.Context, coarse []model.Sample, from time.Time) ([]model.Sample, error) {
	start := from
	if n := len(coarse); n > 0 {
		start = coarse[n-1].At.Add(trends.Coarse)
	}
	fine, err := s.st.Samples(ctx, trends.Fine, start)
	if err != nil || len(fine) == 0 {
		return coarse, err
	}
	last := fine[len(fine)-1].At
	for h := start.Truncate(trends.Coarse); !h.After(last); h = h.Add(trends.Coarse) {
		coarse = append(coarse, trends.Mean(fine, h, h.Add(trends.Coarse))...)
	}
	return coarse, nil
}
