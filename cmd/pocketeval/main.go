// Command pocketeval evaluates small on-device language models.
package main

import (
	"os"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/cli"
	"github.com/pocketeval/pocketeval/sandbox"
)

func main() {
	sandbox.MaybeRunHelper() // becomes the sandbox's set-up helper when re-executed as one
	os.Exit(cli.Main())
}
