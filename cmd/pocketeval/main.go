// Command pocketeval evaluates small on-device language models.
package main

import (
	"os"

	"github.com/pocketeval/pocketeval/internal/cli"
)

func main() { os.Exit(cli.Main()) }
