// Package doctest runs the command examples of Markdown documentation, so
// that the documentation and the program cannot drift apart: every fenced
// block marked sh, bash, shell or console is executed, in document order,
// in one bash session per file, and its exit status and key output lines
// are checked.
//
// Blocks:
//
//   - sh (bash, shell): a script run with `set -e -o pipefail`; every
//     command must succeed.
//   - console: a transcript. Each line starting with "$ " is a command
//     (a trailing backslash continues it on the next line); the lines up
//     to the next command are its expected output. A command must exit 0
//     unless the next command is `echo $?`, whose output then shows the
//     status. Expected output lines must appear in the command's output
//     (stdout and stderr together) in the same order; other lines may come
//     between them. Runs of blanks compare equal, "…" inside a line
//     matches any text (a measured speed, a path), and a line "..." only
//     tells the reader that output was left out.
//   - any other block is not run; but a block without a language whose
//     lines look like pocketeval commands is an error, so a new example
//     cannot escape the test by its fence.
//
// Markers are HTML comments (invisible when rendered) right before a
// block's fence:
//
//	<!-- doctest: skip REASON -->     not run here, for REASON
//	<!-- doctest: offline REASON -->  not run here (REASON: a phone, a hub,
//	                                  the network); the next block is its
//	                                  offline equivalent and must run
//	<!-- doctest: needs PATH -->      run only where PATH exists (an
//	                                  installed MNN), else skipped
//	<!-- doctest: file NAME -->       not run: written to NAME in the
//	                                  session's directory (a policy file a
//	                                  later command reads)
//
// The package parses and runs; which files, which binary and which
// environment are the caller's (docs/docs_test.go).
package doctest

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Marker kinds.
const (
	Skip    = "skip"
	Offline = "offline"
	Needs   = "needs"
	File    = "file"
)

// Block is one fenced block of a Markdown file.
type Block struct {
	File string
	Line int    // the line of the opening fence (1-based)
	Lang string // the fence's info string, first word
	Text string // the block's content, without the fences
	// Marker is the block's doctest marker (Kind "" when none), Arg its
	// argument (reason, path or file name).
	Marker struct{ Kind, Arg string }
}

// Runnable reports whether the block is executed (its language is a shell
// one and no marker keeps it from running).
func (b Block) Runnable() bool {
	switch b.Lang {
	case "sh", "bash", "shell", "console":
	default:
		return false
	}
	return b.Marker.Kind == "" || b.Marker.Kind == Needs
}

var markerRE = regexp.MustCompile(`^<!--\s*doctest:\s*(\S+)\s*(.*?)\s*-->$`)

// commandRE matches a line that looks like a pocketeval command.
var commandRE = regexp.MustCompile(`^(\$ )?(\./)?(bin/)?pocketeval\s`)

// Parse returns the fenced blocks of a Markdown file with their markers.
// It refuses an unknown marker, a marker without its argument, a marker
// that precedes no block, an offline block not followed by a runnable one,
// and an unmarked block without a language that holds pocketeval commands.
func Parse(file string, src []byte) ([]Block, error) {
	var blocks []Block
	var pending *Block // marker waiting for its block
	var cur *Block
	var body strings.Builder
	fence, indent := "", ""
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur != nil {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, "`~") == "" {
				cur.Text = body.String()
				blocks = append(blocks, *cur)
				cur = nil
				continue
			}
			// A block inside a list item is indented like its fence.
			body.WriteString(strings.TrimPrefix(line, indent))
			body.WriteString("\n")
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			indent = line[:len(line)-len(strings.TrimLeft(line, " "))]
			fence = trimmed[:3]
			for _, c := range trimmed[3:] {
				if string(c) != fence[:1] {
					break
				}
				fence += fence[:1]
			}
			info := strings.Fields(strings.TrimLeft(trimmed, "`~"))
			cur = &Block{File: file, Line: n}
			if len(info) > 0 {
				cur.Lang = info[0]
			}
			if pending != nil {
				cur.Marker = pending.Marker
				pending = nil
			}
			body.Reset()
			continue
		}
		if m := markerRE.FindStringSubmatch(trimmed); m != nil {
			if pending != nil {
				return nil, fmt.Errorf("%s:%d: doctest marker %q precedes no block", file, pending.Line, pending.Marker.Kind)
			}
			pending = &Block{Line: n}
			pending.Marker.Kind, pending.Marker.Arg = m[1], m[2]
			switch m[1] {
			case Skip, Offline, Needs, File:
			default:
				return nil, fmt.Errorf("%s:%d: unknown doctest marker %q (want skip, offline, needs or file)", file, n, m[1])
			}
			if m[2] == "" {
				return nil, fmt.Errorf("%s:%d: doctest marker %q needs an argument (a reason, a path or a file name)", file, n, m[1])
			}
			continue
		}
		if pending != nil && trimmed != "" {
			return nil, fmt.Errorf("%s:%d: doctest marker %q precedes no block (text comes between them)", file, pending.Line, pending.Marker.Kind)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: unterminated code block", file, cur.Line)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: doctest marker %q precedes no block", file, pending.Line, pending.Marker.Kind)
	}
	for i, b := range blocks {
		if b.Marker.Kind == Offline && (i+1 >= len(blocks) || !blocks[i+1].Runnable()) {
			return nil, fmt.Errorf("%s:%d: an offline block must be followed by its offline equivalent, a runnable block", file, b.Line)
		}
		if (b.Lang == "" || b.Lang == "text") && b.Marker.Kind == "" {
			for j, l := range strings.Split(b.Text, "\n") {
				if commandRE.MatchString(strings.TrimSpace(l)) {
					return nil, fmt.Errorf("%s:%d: a block without a language holds a command (%q): mark it console or sh so it runs, or skip it with a reason", file, b.Line+1+j, strings.TrimSpace(l))
				}
			}
		}
	}
	return blocks, nil
}

// Step is one command of a console block with the output lines the
// documentation shows for it.
type Step struct {
	Line int // the line of the command in the file
	Cmd  string
	Want []string
}

// Steps splits a console block into its commands.
func (b Block) Steps() []Step {
	var steps []Step
	lines := strings.Split(strings.TrimRight(b.Text, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "$ ") {
			if len(steps) > 0 {
				steps[len(steps)-1].Want = append(steps[len(steps)-1].Want, l)
			}
			continue
		}
		st := Step{Line: b.Line + 1 + i, Cmd: strings.TrimPrefix(l, "$ ")}
		for strings.HasSuffix(st.Cmd, "\\") && i+1 < len(lines) {
			i++
			st.Cmd += "\n" + lines[i]
		}
		steps = append(steps, st)
	}
	return steps
}

// normalize collapses runs of blanks and trims a line.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// Match checks that the want lines appear in got in order, other lines
// allowed between them (see the package doc for "…" and "...").
func Match(want []string, got string) error {
	gotLines := strings.Split(got, "\n")
	for i := range gotLines {
		gotLines[i] = normalize(gotLines[i])
	}
	at := 0
	for _, w := range want {
		w = normalize(w)
		if w == "" || w == "..." {
			continue
		}
		re := lineRE(w)
		found := false
		for ; at < len(gotLines); at++ {
			if re.MatchString(gotLines[at]) {
				found = true
				at++
				break
			}
		}
		if !found {
			return fmt.Errorf("expected line not found (in order): %q", w)
		}
	}
	return nil
}

// lineRE is the pattern of a normalized expected line: literal but for
// "…", which matches any text.
func lineRE(w string) *regexp.Regexp {
	parts := strings.Split(w, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}
