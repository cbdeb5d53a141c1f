package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/taskgov/taskgov/internal/model"
	"github.com/taskgov/taskgov/internal/postgres"
)

// storeFlags choose the database: SQLite in the data directory (the
// default), or PostgreSQL by DSN given on the command line, in a file (a
// mounted Kubernetes Secret) or in the TASKGOV_STORE environment variable.
// The file and the variable keep the password out of process listings.
type storeFlags struct {
	store, dsnFile string
}

// storeEnv is the environment variable read when neither flag is given.
const storeEnv = "TASKGOV_STORE"

func (f *storeFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.store, "store", "", "database: sqlite (DATA_DIR/taskgov.db, the default), sqlite:PATH, or postgres://USER:PASSWORD@HOST:PORT/DB (default: $"+storeEnv+")")
	fs.StringVar(&f.dsnFile, "store-dsn-file", "", "file holding the PostgreSQL DSN (a mounted Secret); instead of --store")
}

// storeChoice is a resolved --store.
type storeChoice struct {
	sqlitePath string // set for SQLite
	dsn        string // set for PostgreSQL
}

func (c storeChoice) postgres() bool { return c.dsn != "" }

// resolve picks the database; dataDir is where SQLite lives by default.
func (f storeFlags) resolve(dataDir string) (storeChoice, error) {
	v := f.store
	if f.dsnFile != "" {
		if v != "" {
			return storeChoice{}, &model.FieldError{Field: "--store-dsn-file", Problem: "is given with --store", Fix: "give one of them"}
		}
		b, err := os.ReadFile(f.dsnFile)
		if err != nil {
			return storeChoice{}, &model.FieldError{Field: "--store-dsn-file", Problem: "cannot be read: " + err.Error(), Fix: "name the file the DSN Secret is mounted at"}
		}
		v = strings.TrimSpace(string(b))
		if !postgres.IsDSN(v) {
			return storeChoice{}, &model.FieldError{Field: "--store-dsn-file", Problem: "does not hold a postgres:// URL",
				Fix: "put postgres://USER:PASSWORD@HOST:PORT/DB in it, on one line"}
		}
	}
	if v == "" {
		v = strings.TrimSpace(os.Getenv(storeEnv))
	}
	switch {
	case v == "" || v == "sqlite":
		return storeChoice{sqlitePath: filepath.Join(dataDir, "taskgov.db")}, nil
	case strings.HasPrefix(v, "sqlite:"):
		return storeChoice{sqlitePath: strings.TrimPrefix(v, "sqlite:")}, nil
	case postgres.IsDSN(v):
		return storeChoice{dsn: v}, nil
	}
	return storeChoice{}, &model.FieldError{Field: "--store", Problem: fmt.Sprintf("%q names no database taskgov knows", redactDSN(v)),
		Fix: "use sqlite, sqlite:PATH, or postgres://USER:PASSWORD@HOST:PORT/DB"}
}

// redactDSN hides anything after a scheme, which may hold a password.
func redactDSN(v string) string {
	if i := strings.Index(v, "://"); i >= 0 {
		return v[:i+3] + "..."
	}
	return v
}
