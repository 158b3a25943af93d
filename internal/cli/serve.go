package cli

import (
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/worldprobe/worldprobe/internal/queue"
	"github.com/worldprobe/worldprobe/internal/serve"
	"github.com/worldprobe/worldprobe/internal/store"
)

// NewCmdServe serves a run folder as a live web viewer.
func NewCmdServe(io IO) *cobra.Command {
	var addr, db string
	var artifacts artifactsFlag
	cmd := &cobra.Command{
		Use:   "serve [RUN] [--addr HOST:PORT] [--db URL]",
		Short: "Serve a run as a live web viewer: progress, leaderboard, models × tasks, each trial's evidence",
		Long: `serve opens a run folder (as 'worldprobe run --out RUN' writes it) and serves a
live viewer of it in your browser, during the run or after it:

  /                 overview: trials finished (of those planned) and unfinished, counts by verdict
                    (pass, fail, crash, timeout, infra, unjudged), the leaderboard
                    and the latest trials
  /leaderboard      the leaderboard in detail, as report.html computes it, with
                    its plots (RoA and TEM n/a: leaderboard.md has them at the end)
  /grid             models × tasks with filters; each mark links to its trial
  /run/trials/X/    a trial's page: failed assertions with this page's values
                    against the reference's, state-over-time plots, screenshot,
                    judged frames, video (seekable: Range requests)
  /run/PATH         any file of the run folder, and only of it
  /events           the Server-Sent Events the pages update themselves from

The pages update without a reload as trials finish (the store is read every
half second). Everything is served by worldprobe itself: no external script,
font or style, so the viewer works offline. The static report.html stays
(/run/report.html).

It listens on 127.0.0.1:8080, the loopback interface only: open the address it
prints in a browser on the same machine, or forward the port over SSH
(ssh -L 8080:127.0.0.1:8080 host). --addr 0.0.0.0:8080 shows the run to your
whole network, without any login: do that only on a network you trust.

--db names the results database instead of RUN/results.db: a SQLite file (a path
or sqlite:PATH), or the PostgreSQL database a run queued its trials in
(postgres://…, with RUN: one database holds many runs, and RUN names which). With a
SQLite --db alone, without RUN, the pages have no trial evidence. --artifacts
reads the trials' files from where the workers copied them (a folder, or an
S3-compatible bucket: s3://BUCKET/PREFIX with $WORLDPROBE_S3_ENDPOINT,
$AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY from the environment) instead of the
run folder. With a PostgreSQL --db the overview also counts the generation and
repair jobs feeding RUN ('gen --db … --judge RUN'): queued, running, done and
given up. Ctrl-C stops the server.`,
		Example: `  worldprobe run --suite suites/starter --oracle --out out/run
  worldprobe serve out/run                    # then open http://127.0.0.1:8080/
  worldprobe serve out/run --addr 127.0.0.1:9000
  worldprobe serve --db out/run/results.db
  worldprobe serve out/run --db postgres://worldprobe@db.internal/runs
  worldprobe serve /shared/runs/starter --db postgres://wp@db/wp --artifacts s3://runs/worldprobe`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run := ""
			if len(args) == 1 {
				run = args[0]
			}
			if run == "" && db == "" {
				return usageErr("give a run folder or --db\nRun 'worldprobe serve --help' for usage.")
			}
			ctx := cmd.Context()
			if artifacts.Where != "" && run == "" {
				return usageErr("--artifacts needs RUN: the store holds each run under its folder's path")
			}
			files, err := artifacts.runFiles(ctx, io, run)
			if err != nil {
				return err
			}
			o := serve.Options{Run: run, DB: db, Artifacts: files}
			if store.IsPostgresURL(db) && run != "" {
				steps, err := queue.NewStepCounter(ctx, db, run)
				if err != nil {
					return runtimeErr(err)
				}
				defer steps.Close()
				o.Steps = steps.Count
			}
			s, err := serve.New(ctx, o)
			if err != nil {
				return err
			}
			defer s.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return usageErr("listening on %s: %v", addr, err)
			}
			fmt.Fprintf(io.Out, "serving %s at http://%s/ (Ctrl-C stops)\n", describe(run, db), ln.Addr())
			return s.Serve(ctx, ln)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", serve.DefaultAddr, "address to listen on (the loopback interface by default)")
	cmd.Flags().StringVar(&db, "db", "", "results database to read instead of RUN/results.db (a SQLite path)")
	artifacts.register(cmd.Flags(), "read the trials' files from `WHERE`, where 'run --artifacts' or the workers copied them (a folder or s3://BUCKET/PREFIX, endpoint and keys from the environment), instead of the run folder, which then need not be on this machine")
	return cmd
}

func describe(run, db string) string {
	if run == "" {
		return db
	}
	return run
}
