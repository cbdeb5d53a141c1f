package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/taskgov/taskgov/internal/loadavg"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/postgres/pgtest"
)

// tempPostgres is the --store value that makes the loadtest start a
// throwaway PostgreSQL cluster of its own (as the tests do: initdb in a
// temporary directory, a loopback port, fsync and synchronous_commit on,
// run as nobody when taskgov runs as root), with an empty database for each
// round, and remove it at the end.
const tempPostgres = "postgres-temp"

// loadtestStores runs one loadtest per store and round, the stores taking
// turns, so that their figures come from the same minutes. Before each it
// prints the store and the machine's load average (the figures are only
// comparable on a machine equally loaded).
func loadtestStores(out io.Writer, list string, rounds int, run func(storeRun) error) error {
	stores := strings.Split(list, ",")
	var pg *pgtest.Server
	defer func() {
		if pg != nil {
			pg.Stop()
		}
	}()
	for _, st := range stores {
		switch {
		case st == "" || st == "sqlite":
		case st == tempPostgres:
		case postgres.IsDSN(st):
			if rounds > 1 {
				return &model.FieldError{Field: "--rounds", Problem: "is over 1 with a postgres:// store (each round needs an empty database)",
					Fix: "use --store " + tempPostgres + " (a throwaway cluster, a new database per round), or --rounds 1"}
			}
		default:
			return &model.FieldError{Field: "--store", Problem: fmt.Sprintf("%q names no store the loadtest knows", redactDSN(st)),
				Fix: "use sqlite, " + tempPostgres + ", postgres://... (an empty database), or a comma-separated list of them"}
		}
	}
	for r := 1; r <= rounds; r++ {
		for _, st := range stores {
			label, dsn, dbPID := "sqlite", "", 0
			switch {
			case st == tempPostgres:
				if pg == nil {
					var err error
					if pg, err = pgtest.StartServer(); err != nil {
						return fmt.Errorf("starting a throwaway PostgreSQL: %w", err)
					}
				}
				var err error
				if dsn, err = pg.CreateDatabase(); err != nil {
					return err
				}
				label, dbPID = "postgres (throwaway cluster, "+pg.Dir+")", pg.PID()
			case postgres.IsDSN(st):
				label, dsn = "postgres", st
			}
			var args []string
			name := "sqlite"
			if dsn != "" {
				args, name = append(args, "--store", dsn), "postgres"
			}
			fmt.Fprintf(out, "round %d, store %s, load average %s\n", r, label, loadavg.String())
			if err := run(storeRun{fmt.Sprintf("%s-%d", name, r), args, dbPID, dsn != ""}); err != nil {
				return fmt.Errorf("%s, round %d: %w", label, r, err)
			}
		}
	}
	return nil
}

// storeRun is one run of loadtestStores.
type storeRun struct {
	name       string // STORE-ROUND: sqlite-1, postgres-2
	serverArgs []string
	dbPID      int // the PostgreSQL cluster's postmaster, if the loadtest started it
	postgres   bool
}
