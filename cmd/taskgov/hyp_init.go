package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// hyp's init experience over taskgov: `hyp init hyp-pytorch-job [DIR]`
// writes config.yaml and a README; `hyp configure --FIELD VALUE` sets
// fields; `hyp validate` checks them; `hyp reset` empties them; `hyp
// create` submits the job and keeps a copy of config.yaml in run/<time>/.
// taskgov renders no Kubernetes manifest (no k8s.jinja): it submits the
// job itself. Other templates (endpoints, cluster stacks, recipe jobs) are
// refused with the reason.

// hypCreateHelp is the help of `hyp create hyp-pytorch-job`'s option:
// config.yaml's comment for the field.
func hypCreateHelp(flag string) string {
	c, _ := newHypCreate()
	if f := c.Flags().Lookup(flag); f != nil {
		return f.Usage
	}
	return ""
}

const hypInitReadme = `# A hyp-pytorch-job for taskgov

This directory holds one PyTorch job for ` + "`hyp create`" + `, served by taskgov.

- ` + "`config.yaml`" + `: the job. Its fields are the options of
  ` + "`hyp create hyp-pytorch-job`" + ` (see ` + "`hyp create hyp-pytorch-job --help`" + `),
  written with ` + "`_`" + ` for ` + "`-`" + `; an empty field is not passed.
- ` + "`hyp configure --job-name my-job --image IMAGE --command '[python3, /abs/train.py]'`" + `
  sets fields; ` + "`hyp validate`" + ` checks them; ` + "`hyp reset`" + ` empties them.
- ` + "`hyp create`" + ` submits the job and keeps the submitted config.yaml in
  ` + "`run/<time>/`" + `. Then ` + "`hyp list hyp-pytorch-job`" + `, ` + "`hyp describe hyp-pytorch-job --job-name NAME`" + `.

taskgov runs ` + "`command`" + ` followed by ` + "`args`" + `; on its local executor the job
runs on the server's host in its own directory, so name a script by its
absolute path. docs/HYPERPOD.md lists what taskgov does with each option.
`

func hypInitCmd() *cobra.Command {
	var version string
	c := &cobra.Command{Use: "init TEMPLATE [DIRECTORY]", Short: "Write config.yaml for a hyp-pytorch-job in DIRECTORY (default: here)",
		// Another template's options (hyp init hyp-recipe-job --model-id M)
		// get the template's refusal, not "unknown flag".
		Args: cobra.ArbitraryArgs, DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != hypTemplate {
				return hypInitRefusal(args[0])
			}
			args, err := parseOwnFlags(cmd, args)
			if err != nil {
				return err
			}
			if help, _ := cmd.Flags().GetBool("help"); help {
				return cmd.Help()
			}
			if len(args) < 1 || len(args) > 2 {
				return &usageError{fmt.Sprintf("hyp init takes TEMPLATE [DIRECTORY], got %d arguments: use `hyp init hyp-pytorch-job [DIR]`", len(args))}
			}
			if args[0] != hypTemplate {
				return hypInitRefusal(args[0])
			}
			if version != "1.0" && version != "1.1" {
				return unsupportedSchema(version, "hyp init takes --version 1.0 or 1.1")
			}
			dir := "."
			if len(args) == 2 {
				dir = args[1]
			}
			if _, err := os.Stat(filepath.Join(dir, hypConfigName)); err == nil {
				return &usageError{fmt.Sprintf("hyp init: %s already holds a config.yaml: run `hyp reset` there to empty it, or init another directory", dir)}
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "Initializing new scaffold for '%s'…\n", hypTemplate)
			cfg := hypConfig{template: hypTemplate, version: version, values: map[string]any{}}
			if err := cfg.save(dir, hypCreateHelp); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(hypInitReadme), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(out, "✔️ %s for schema version='%s' is initialized in %s\n", hypTemplate, version, dir)
			fmt.Fprintf(out, "🚀 Welcome!\n📘 See %s/README.md for usage.\n", dir)
			return nil
		}}
	c.Flags().StringVarP(&version, "version", "v", "1.1", "schema version: 1.0 or 1.1")
	return c
}

// hypInitRefusal refuses a template other than hyp-pytorch-job.
func hypInitRefusal(template string) error {
	why, ok := hypOtherResources[template]
	switch {
	case template == "hyp-recipe-job":
		why = "a recipe job's recipe, parameters and Kubernetes template come from SageMaker JumpStart Hub and S3, which a taskgov server does not reach; " +
			"run the recipe's training command as a job: `hyp init hyp-pytorch-job`, then `hyp configure --command '[...]'` " +
			"(hyp list, describe, delete, list-pods and get-logs hyp-recipe-job address such a job too)"
	case !ok:
		why = "no such template"
	}
	return &usageError{fmt.Sprintf("hyp init %s is not served by taskgov: %s; taskgov's template is hyp-pytorch-job (`hyp init hyp-pytorch-job [DIR]`)", template, why)}
}

// hypConfigureCmd has one option per field of either schema version.
func hypConfigureCmd() *cobra.Command {
	// Its options are config.yaml's fields: without a config.yaml the
	// answer is to run hyp init, whatever options are given (hyp's README
	// configures a recipe job with --name, --data-path, ...).
	c := &cobra.Command{Use: "configure", Short: "Set fields of ./config.yaml: --FIELD VALUE, as `hyp create hyp-pytorch-job` takes them",
		Args: cobra.ArbitraryArgs, DisableFlagParsing: true}
	vals := map[string]*[]string{}
	for _, f := range hypFields {
		v := new([]string)
		vals[f.key] = v
		c.Flags().StringArrayVar(v, f.flag(), nil, hypCreateHelp(f.flag()))
	}
	c.RunE = func(cmd *cobra.Command, args []string) error {
		cfg, err := loadHypConfig(".")
		if err != nil && !contains(args, "--help") && !contains(args, "-h") {
			return err
		}
		if args, err = parseOwnFlags(cmd, args); err != nil {
			return err
		}
		if help, _ := cmd.Flags().GetBool("help"); help {
			return cmd.Help()
		}
		if len(args) > 0 {
			return &usageError{fmt.Sprintf("hyp configure takes options only (--FIELD VALUE), not %q", args[0])}
		}
		inVersion := map[string]bool{}
		for _, f := range hypFieldsOf(cfg.version) {
			inVersion[f.key] = true
		}
		var problems []string
		changed := 0
		for _, f := range hypFields {
			if !cmd.Flags().Changed(f.flag()) {
				continue
			}
			if !inVersion[f.key] {
				problems = append(problems, fmt.Sprintf("--%s: a field of schema 1.1; this config.yaml is %s (hyp init hyp-pytorch-job --version 1.1)", f.flag(), cfg.version))
				continue
			}
			v, err := fieldValue(f, *vals[f.key])
			if err != nil {
				problems = append(problems, fmt.Sprintf("--%s: %v", f.flag(), err))
				continue
			}
			if p := hypFieldProblem(f.key, v); p != "" {
				problems = append(problems, f.key+": "+p)
				continue
			}
			cfg.values[f.key] = v
			changed++
		}
		if len(problems) > 0 {
			return &echoedError{"❌  Invalid input arguments:\n  – " + strings.Join(problems, "\n  – ") + "\n❌  config.yaml was not updated due to invalid input."}
		}
		if changed == 0 {
			return cmd.Help()
		}
		if err := cfg.save(".", hypCreateHelp); err != nil {
			return err
		}
		fmt.Fprintln(cmd.OutOrStdout(), "✔️  config.yaml updated successfully.")
		return nil
	}
	return c
}

// checkHypConfig loads ./config.yaml and checks it as `hyp create` would
// (field types, then the options through `hyp create hyp-pytorch-job`'s
// own checks); it returns those options.
// Notes on options taskgov accepts but does not use go to notes.
func checkHypConfig(cmd *cobra.Command, notes io.Writer) ([]string, *cobra.Command, *hypCreate, error) {
	cfg, err := loadHypConfig(".")
	if err != nil {
		return nil, nil, nil, err
	}
	args, problems := cfg.options()
	var create *cobra.Command
	var h *hypCreate
	if len(problems) == 0 {
		create, h = newHypCreate()
		create.SetOut(cmd.OutOrStdout())
		create.SetErr(notes)
		create.SetContext(cmd.Context())
		if err := create.ParseFlags(args); err != nil {
			problems = append(problems, err.Error())
		} else if _, err := h.spec(create); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return nil, nil, nil, &echoedError{"❌  Config validation errors:\n  – " + strings.Join(problems, "\n  – ")}
	}
	return args, create, h, nil
}

func hypValidateCmd() *cobra.Command {
	return &cobra.Command{Use: "validate", Short: "Check ./config.yaml as `hyp create` would, without submitting", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, _, _, err := checkHypConfig(cmd, cmd.ErrOrStderr()); err != nil {
				return err
			}
			// hyp's check of config.yaml prints the first line; its
			// validate command the second.
			fmt.Fprintln(cmd.OutOrStdout(), "✔️  config.yaml is valid!\n✔️ Configuration validated successfully")
			return nil
		}}
}

func hypResetCmd() *cobra.Command {
	return &cobra.Command{Use: "reset", Short: "Empty every field of ./config.yaml (template and version stay)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadHypConfig(".")
			if err != nil {
				return err
			}
			cfg.values = map[string]any{}
			if err := cfg.save(".", hypCreateHelp); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "✔️  config.yaml reset: all fields set to default values.")
			return nil
		}}
}

// hypCreateFromConfig is `hyp create` without a resource: the job of
// ./config.yaml, checked, its config.yaml kept in run/<time>/, submitted.
func hypCreateFromConfig(cmd *cobra.Command) error {
	for _, f := range []string{"region", "template-version"} {
		if cmd.Flags().Changed(f) {
			return &echoedError{fmt.Sprintf("❌  --%s is only for the cluster-stack template, which taskgov does not serve: drop it", f)}
		}
	}
	_, create, h, err := checkHypConfig(cmd, io.Discard)
	if err != nil {
		return err
	}
	create.SetErr(cmd.ErrOrStderr())
	fmt.Fprintln(cmd.OutOrStdout(), "✔️  config.yaml is valid!")
	b, err := os.ReadFile(hypConfigName)
	if err != nil {
		return err
	}
	h.fromConfig = true // hyp prints no "Using version" here
	if err := h.run(create); err != nil {
		// hyp's create prints any failure to submit this way (stdout, exit
		// 1), a refused value too; nothing is kept: the job was not submitted.
		return &echoedError{"❌  Failed to submit the command: " + err.Error()}
	}
	run, err := keepRunDir(time.Now())
	if err != nil {
		return fmt.Errorf("the job was submitted, but its config.yaml could not be kept: %w", err)
	}
	if err := os.WriteFile(filepath.Join(run, hypConfigName), b, 0o644); err != nil {
		return fmt.Errorf("the job was submitted, but its config.yaml could not be kept: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "✔️  Submitted! Files written to %s\n", run)
	return nil
}

// keepRunDir makes a new directory run/<time> for a submitted job's
// config.yaml; a second job in the same second gets run/<time>-2, and so on.
func keepRunDir(now time.Time) (string, error) {
	base := filepath.Join("run", now.Format("20060102T150405"))
	if err := os.MkdirAll("run", 0o755); err != nil {
		return "", err
	}
	dir := base
	for k := 2; ; k++ {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !os.IsExist(err) || k > 1000 {
			return "", err
		}
		dir = fmt.Sprintf("%s-%d", base, k)
	}
}
