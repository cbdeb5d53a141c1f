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

// cliConfig is what `taskgov login` (and HyperPod's connect-cluster or
// set-cluster-context) stores. Namespace is the default team namespace of
// job commands given no -n.
type cliConfig struct {
	Server    string `yaml:"server"`
	Token     string `yaml:"token"`
	Namespace string `yaml:"namespace,omitempty"`
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

func readConfig() cliConfig {
	var c cliConfig
	if b, err := os.ReadFile(configPath()); err == nil {
		_ = yaml.Unmarshal(b, &c)
	}
	return c
}

func writeConfig(c cliConfig) (string, error) {
	b, _ := yaml.Marshal(c)
	p := configPath()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	return p, os.WriteFile(p, b, 0o600)
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
		c := readConfig()
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
	var namespace string
	c := &cobra.Command{
		Use:   "login",
		Short: "Save --server and --token (and a default --namespace) to the CLI config file (mode 0600)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if connFlags.server == "" || connFlags.token == "" {
				return &model.FieldError{Field: "--server/--token", Problem: "both are needed", Fix: "run taskgov login --server URL --token TOKEN"}
			}
			cl := client.New(connFlags.server, connFlags.token)
			if _, err := cl.Policy(cmd.Context()); err != nil {
				return fmt.Errorf("the server refused these credentials: %w", err)
			}
			cfg := cliConfig{Server: connFlags.server, Token: connFlags.token}
			if namespace != "" {
				team, err := newResolver(cl).team(cmd.Context(), namespace)
				if err != nil {
					return err
				}
				cfg.Namespace = model.NamespacePrefix + team
			}
			p, err := writeConfig(cfg)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "logged in to %s; credentials saved in %s\n", connFlags.server, p)
			return nil
		},
	}
	c.Flags().StringVarP(&namespace, "namespace", "n", "", "default team namespace of job commands given no -n")
	return c
}

// withClient is a command body that needs the API client: the client is
// made from the connection flags before fn runs, and its error ends the
// command.
func withClient(fn func(cmd *cobra.Command, args []string, cl *client.Client) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		cl, err := apiClient()
		if err != nil {
			return err
		}
		return fn(cmd, args, cl)
	}
}
