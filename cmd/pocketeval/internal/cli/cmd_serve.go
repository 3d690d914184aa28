package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/serve"
)

// serveCommands returns the serve area's commands.
func serveCommands(f *Factory) []*cobra.Command { return []*cobra.Command{NewCmdServe(f, nil)} }

// ServeOptions are the options of `pocketeval serve`.
type ServeOptions struct {
	IO      *IOStreams
	Runtime RuntimeOptions

	Addr          string        // --addr
	ServedModel   string        // --served-model-name
	MaxConcurrent int           // --parallel
	MaxQueue      int           // --max-queue
	KeyEnv        string        // --require-key-env
	Grace         time.Duration // --shutdown-grace
	Quiet         bool          // --quiet
	CORSOrigins   []string      // --cors-origin

	// Open opens the runtime; OpenRuntime unless a test replaces it.
	Open func(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error)
	// Ready, when set, is called with the listening address once the
	// server accepts connections.
	Ready func(addr net.Addr)
}

// NewCmdServe serves a runtime over an OpenAI-compatible HTTP API.
func NewCmdServe(f *Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IO, Open: OpenRuntime, Runtime: RuntimeOptions{Drivers: f.runtimes(), Machine: f.Machine}}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a model over an OpenAI-compatible HTTP API",
		Long: `Serve any runtime as an OpenAI-compatible API: /v1/chat/completions (with
streaming), /v1/completions, /v1/models, /health, and /v1/loglikelihood and
/v1/loglikelihood_rolling (pocketeval's extensions for exact log-likelihoods).

Run it next to the model (on a phone or a board) and evaluate from a
workstation with --runtime openai --base-url http://DEVICE:8080/v1.
Responses carry the engine's own timings, so speeds exclude the network.

The default address is loopback only. Serving on a network address exposes
the model to anyone who can reach it; protect it with --require-key-env.
SIGINT/SIGTERM stop accepting requests and let running ones finish for
--shutdown-grace (a second interrupt cancels them at once).`,
		Example: `  $ pocketeval serve --runtime mnn --model ~/models/pocket-0.3b --addr 127.0.0.1:8080
  $ POCKETEVAL_SERVE_KEY=s3cret pocketeval serve --runtime llamacpp --model m.gguf --addr 0.0.0.0:8080 --require-key-env POCKETEVAL_SERVE_KEY
  $ pocketeval run --runtime openai --base-url http://192.168.1.20:8080/v1 --api-key-env POCKETEVAL_SERVE_KEY --tasks ifeval`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, _, err := net.SplitHostPort(opts.Addr); err != nil {
				return FlagErrorf("--addr %q: want host:port (e.g. 127.0.0.1:8080): %v", opts.Addr, err)
			}
			if opts.MaxConcurrent < 1 {
				return FlagErrorf("--parallel %d: must be at least 1", opts.MaxConcurrent)
			}
			if opts.MaxQueue < 0 {
				return FlagErrorf("--max-queue %d: must not be negative", opts.MaxQueue)
			}
			if opts.Grace < 0 {
				return FlagErrorf("--shutdown-grace %v: must not be negative", opts.Grace)
			}
			if opts.Runtime.Name == "" {
				return FlagErrorf("--runtime is required")
			}
			for _, o := range opts.CORSOrigins {
				if o != "*" && !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") {
					return FlagErrorf("--cors-origin %q: want an origin such as https://app.example, or *", o)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	opts.Runtime.AddFlags(cmd.Flags())
	fl := cmd.Flags()
	fl.StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "listen address (host:port); loopback only by default")
	fl.StringVar(&opts.ServedModel, "served-model-name", "", "model name reported to clients (default: the runtime's model)")
	fl.IntVar(&opts.MaxConcurrent, "parallel", 1, "generations run at once (also the engine contexts opened)")
	fl.IntVar(&opts.MaxQueue, "max-queue", 64, "requests waiting for a slot before new ones get 429")
	fl.StringVar(&opts.KeyEnv, "require-key-env", "", "environment variable holding a key clients must send as a Bearer token")
	fl.DurationVar(&opts.Grace, "shutdown-grace", 30*time.Second, "how long running requests may finish after SIGINT/SIGTERM")
	fl.BoolVar(&opts.Quiet, "quiet", false, "do not log each request to stderr")
	fl.StringSliceVar(&opts.CORSOrigins, "cors-origin", nil, "browser origin allowed to call the API (CORS), e.g. https://app.example; repeatable; * allows any")
	return cmd
}

func serveRun(ctx context.Context, opts *ServeOptions) error {
	var key string
	if opts.KeyEnv != "" {
		key = os.Getenv(opts.KeyEnv)
		if key == "" {
			return FlagErrorf("--require-key-env %s: the variable is empty or unset", opts.KeyEnv)
		}
	}
	host, _, _ := net.SplitHostPort(opts.Addr)
	if ip := net.ParseIP(host); (ip == nil && host != "localhost") || (ip != nil && !ip.IsLoopback()) {
		msg := "warning: serving on %s, reachable from the network"
		if key == "" {
			msg += " without authentication (see --require-key-env)"
		}
		fmt.Fprintf(opts.IO.ErrOut, msg+"\n", opts.Addr)
	}

	ro := opts.Runtime
	if ro.Workers < opts.MaxConcurrent {
		ro.Workers = opts.MaxConcurrent
	}
	rt, err := opts.Open(ctx, ro)
	if err != nil {
		return err
	}
	defer rt.Close()

	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("serve: listen: %w", err)
	}
	var log *slog.Logger
	if !opts.Quiet {
		log = slog.New(slog.NewTextHandler(opts.IO.ErrOut, nil))
	}
	h := serve.New(rt, serve.Options{
		Model:         opts.ServedModel,
		MaxConcurrent: opts.MaxConcurrent,
		MaxQueue:      opts.MaxQueue,
		APIKey:        key,
		Log:           log,
		CORSOrigins:   opts.CORSOrigins,
	})
	name := opts.Runtime.Name
	if d, ok := rt.(runtime.Describer); ok && d.Describe().Model != "" {
		name += " " + d.Describe().Model
	}
	fmt.Fprintf(opts.IO.ErrOut, "serving %s on http://%s/v1 as model %q (parallel %d)\n", name, ln.Addr(), h.Model(), opts.MaxConcurrent)
	if opts.Ready != nil {
		opts.Ready(ln.Addr())
	}
	// The first SIGINT/SIGTERM ends ctx (Main's signal context) and
	// starts the graceful shutdown; a second one cancels what is still
	// running. Both reach this channel too.
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigc)
	force := make(chan struct{})
	done := make(chan struct{})
	defer close(done)
	go func() {
		for n := 1; ; n++ {
			select {
			case <-sigc:
				if n == 2 {
					close(force)
					return
				}
			case <-done:
				return
			}
		}
	}()
	shutdown := serve.ShutdownOptions{
		Grace: opts.Grace,
		Force: force,
		Started: func() {
			fmt.Fprintf(opts.IO.ErrOut, "shutting down: running requests have %v to finish (interrupt again to cancel them)\n", opts.Grace)
		},
	}
	if err := serve.Serve(ctx, ln, h, shutdown); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.ErrOut, "server stopped")
	return nil
}
