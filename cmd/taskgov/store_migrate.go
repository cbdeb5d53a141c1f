package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/taskgov/taskgov/internal/httpapi"
	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
	"github.com/taskgov/taskgov/internal/sqlite"
)

func storeCmd() *cobra.Command {
	c := &cobra.Command{Use: "store", Short: "Manage taskgov's database"}
	var from, to, toFile string
	var finish bool
	migrate := &cobra.Command{
		Use:   "migrate --from sqlite:PATH --to postgres://...",
		Short: "Move an installation's SQLite database into an empty PostgreSQL database, with a count check",
		Long: `Copies every table of the SQLite database (tasks, events, tokens, audit log, runs, sessions,
samples, the cluster configuration) into an empty PostgreSQL database in one transaction, from one
consistent snapshot, then checks that each table holds as many rows as the snapshot did.
The SQLite file is only read, so its server may keep running meanwhile (on the same host: WAL lets
readers share the file). If it does, the move is unfinished: servers refuse the PostgreSQL database
until you stop the SQLite server and run this again with --finish, which copies what the server
wrote after the snapshot (in seconds) and checks every table's count against the SQLite file.
Then start the replicas with --store pointing at PostgreSQL.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, ok := strings.CutPrefix(from, "sqlite:")
			if !ok || path == "" {
				return &model.FieldError{Field: "--from", Problem: "must be sqlite:PATH", Fix: "e.g. --from sqlite:taskgov-data/taskgov.db"}
			}
			if _, err := os.Stat(path); err != nil {
				return &model.FieldError{Field: "--from", Problem: err.Error(), Fix: "name the server's taskgov.db"}
			}
			target, err := (storeFlags{store: to, dsnFile: toFile}).resolve("")
			if err != nil || !target.postgres() {
				return &model.FieldError{Field: "--to", Problem: "must name a PostgreSQL database",
					Fix: "give --to postgres://USER:PASSWORD@HOST:PORT/DB, --to-dsn-file, or $" + storeEnv}
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			st, err := postgres.OpenForImport(ctx, target.dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			out := cmd.OutOrStdout()
			if finish {
				counts, err := st.FinishSQLiteImport(ctx, path)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "finished moving %s into PostgreSQL; counts match: %s\n", path, counts)
				return nil
			}
			res, err := st.ImportSQLite(ctx, path)
			if err != nil {
				return err
			}
			if res.Holder == 0 {
				fmt.Fprintf(out, "moved %s into PostgreSQL; counts match: %s\n", path, res.Counts)
				return nil
			}
			fmt.Fprintf(out, "moved a snapshot of %s into PostgreSQL; counts match: %s\n"+
				"A server (%s) still uses %s: what it acknowledges from now on is not moved yet, and servers refuse the\n"+
				"PostgreSQL database until the move is finished. Stop that server, then run:\n"+
				"  taskgov store migrate --finish --from %s --to ...\n", path, res.Counts, postgres.HolderName(res.Holder), path, from)
			return nil
		},
	}
	migrate.Flags().StringVar(&from, "from", "", "the SQLite database: sqlite:PATH")
	migrate.Flags().StringVar(&to, "to", "", "the PostgreSQL database: postgres://USER:PASSWORD@HOST:PORT/DB (default: $"+storeEnv+")")
	migrate.Flags().StringVar(&toFile, "to-dsn-file", "", "file holding the PostgreSQL DSN, instead of --to")
	migrate.Flags().BoolVar(&finish, "finish", false, "finish a move started while the SQLite server ran: copy what it wrote since (stop it first)")
	c.AddCommand(migrate, adminTokenCmd())
	return c
}

// adminTokenCmd issues an admin token straight into the database: the way
// back in when the first start's DATA_DIR/admin.token is gone (on
// Kubernetes with PostgreSQL it lives in one pod's scratch directory).
// Whoever can reach the database can already change anything in it.
func adminTokenCmd() *cobra.Command {
	var sf storeFlags
	var dataDir, note string
	c := &cobra.Command{
		Use:   "admin-token",
		Short: "Issue an admin token straight into the database and print it (when admin.token is lost)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sc, err := sf.resolve(dataDir)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			var st httpapi.TokenStore
			if sc.postgres() {
				p, err := postgres.Open(ctx, sc.dsn)
				if err != nil {
					return err
				}
				defer p.Close()
				st = p
			} else {
				if _, err := os.Stat(sc.sqlitePath); err != nil {
					return &model.FieldError{Field: "--store", Problem: "no database at " + sc.sqlitePath, Fix: "give --data-dir or --store of the installation"}
				}
				s, err := sqlite.Open(sc.sqlitePath)
				if err != nil {
					return err
				}
				defer s.Close()
				st = s
			}
			_, secret, err := httpapi.IssueToken(ctx, st, model.RoleAdmin, "", note, "taskgov store admin-token")
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), secret)
			return nil
		},
	}
	sf.register(c.Flags())
	c.Flags().StringVar(&dataDir, "data-dir", "taskgov-data", "the server's data directory (for the default SQLite store)")
	c.Flags().StringVar(&note, "note", "issued by taskgov store admin-token", "note stored with the token")
	return c
}
