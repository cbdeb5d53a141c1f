package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/taskgov/taskgov/internal/client"
	"github.com/taskgov/taskgov/internal/model"
)

// connFlags are the persistent --server and --token flags.
var connFlags struct{ server, token string }

// cliConfig is what `taskgov login` stores.
type cliConfig struct {
	Server string `yaml:"server"`
	Token  string `yaml:"token"`
}

// configPath is the CLI config file: $TASKGOV_CONFIG, else
// <user config dir>/taskgov/config.yaml.
func configPath() string {
	if p := os.Getenv("TASKGOV_CONFIG"); p != "" {
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = "."
	}
	return filepath.Join(dir, "taskgov", "config.yaml")
}

// apiClient resolves the server and token: flags, then environment
// (TASKGOV_SERVER, TASKGOV_TOKEN), then the config file.
func apiClient() (*client.Client, error) {
	server, token := connFlags.server, connFlags.token
	if server == "" {
		server = os.Getenv("TASKGOV_SERVER")
	}
	if token == "" {
		token = os.Getenv("TASKGOV_TOKEN")
	}
	if server == "" || token == "" {
		var c cliConfig
		if b, err := os.ReadFile(configPath()); err == nil {
			_ = yaml.Unmarshal(b, &c)
		}
		if server == "" {
			server = c.Server
		}
		if token == "" {
			token = c.Token
		}
	}
	if server == "" {
		return nil, &model.FieldError{Field: "--server", Problem: "no taskgov server given",
			Fix: "pass --server URL, set TASKGOV_SERVER, or run `taskgov login --server URL --token TOKEN`"}
	}
	return client.New(server, token), nil
}

func loginCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "login",
		Short: "Save --server and --token to the CLI config file (mode 0600)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if connFlags.server == "" || connFlags.token == "" {
				return &model.FieldError{Field: "--server/--token", Problem: "both are needed", Fix: "run taskgov login --server URL --token TOKEN"}
			}
			c := client.New(connFlags.server, connFlags.token)
			if err := c.Do(cmd.Context(), "GET", "/api/v1/policy", nil, nil); err != nil {
				return fmt.Errorf("the server refused these credentials: %w", err)
			}
			b, _ := yaml.Marshal(cliConfig{Server: connFlags.server, Token: connFlags.token})
			p := configPath()
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(p, b, 0o600); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "logged in to %s; credentials saved in %s\n", connFlags.server, p)
			return nil
		},
	}
}

// call resolves the server and token and makes one API call.
func call(cmd *cobra.Command, method, path string, body, out any) error {
	cl, err := apiClient()
	if err != nil {
		return err
	}
	return cl.Do(cmd.Context(), method, path, body, out)
}
