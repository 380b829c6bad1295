package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The documentation this file checks: the README, the guides in docs/ and
// the scenario reference, relative to the repository root.
var docFiles = []string{"README.md", "docs/*.md", "scenarios/README.md"}

// repoRoot is the repository root, from this package's directory.
const repoRoot = "../.."

// docPaths lists the documentation files, relative to the repository root.
func docPaths(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, pattern := range docFiles {
		m, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		if err != nil || len(m) == 0 {
			t.Fatalf("no documentation matches %s (%v)", pattern, err)
		}
		for _, p := range m {
			rel, _ := filepath.Rel(repoRoot, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
	}
	return paths
}

// mdLine is one line of a Markdown file outside its fenced code blocks,
// or, in a block, with the block's info string (lang).
type mdLine struct {
	n      int    // 1-based line number
	text   string // the line
	inCode bool   // inside a fenced code block
	lang   string // the block's info string, for lines inside one
}

// mdLines splits Markdown into lines, marking those in fenced code blocks
// (``` fences, which may be indented, as in a list item).
func mdLines(src string) []mdLine {
	var out []mdLine
	inCode, lang := false, ""
	for i, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if inCode {
				inCode, lang = false, ""
			} else {
				inCode, lang = true, strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))
			}
			continue
		}
		out = append(out, mdLine{n: i + 1, text: line, inCode: inCode, lang: lang})
	}
	return out
}

// inlineCode matches an inline code span, whose text is no link.
var inlineCode = regexp.MustCompile("`[^`]*`")

// mdLink matches a Markdown link or image: [text](target) or ![alt](target).
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)

// anchors returns the GitHub anchors of a Markdown file's headings: the
// heading lowercased, every character but letters, digits, spaces, '-'
// and '_' removed, spaces turned into '-'; a repeated heading gets -1,
// -2, … as GitHub numbers them.
func anchors(src string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range mdLines(src) {
		if l.inCode || !strings.HasPrefix(l.text, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(l.text, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

func TestAnchors(t *testing.T) {
	got := anchors("# Choosing a hedge delay: `hedgesim optimize`\n```\n# not a heading\n```\n" +
		"### `[classes.retry]` and `[classes.attempt_retry]` (optional)\n## Notes\n## Notes\n")
	for _, want := range []string{"choosing-a-hedge-delay-hedgesim-optimize", "classesretry-and-classesattempt_retry-optional", "notes", "notes-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("a comment in a code block made an anchor: %v", got)
	}
}

// TestDocLinks: every relative link in the documentation names a file or
// directory that exists, and every #anchor a heading of its target (or of
// the file itself), so that moving a section cannot leave a dead link.
func TestDocLinks(t *testing.T) {
	cache := map[string]map[string]bool{}
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := cache[path]; ok {
			return a, nil
		}
		src, err := os.ReadFile(filepath.Join(repoRoot, path))
		if err != nil {
			return nil, err
		}
		cache[path] = anchors(string(src))
		return cache[path], nil
	}
	links := 0
	for _, doc := range docPaths(t) {
		src, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range mdLines(string(src)) {
			if l.inCode {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(l.text, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, anchor, _ := strings.Cut(target, "#")
				resolved := doc
				if file != "" {
					resolved = filepath.ToSlash(filepath.Join(filepath.Dir(doc), file))
					if _, err := os.Stat(filepath.Join(repoRoot, resolved)); err != nil {
						t.Errorf("%s:%d: link %s: %s does not exist", doc, l.n, target, resolved)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(resolved, ".md") {
					t.Errorf("%s:%d: link %s: an anchor into a file that is not Markdown", doc, l.n, target)
					continue
				}
				a, err := anchorsOf(resolved)
				if err != nil {
					t.Errorf("%s:%d: link %s: %v", doc, l.n, target, err)
				} else if !a[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", doc, l.n, target, resolved, anchor)
				}
			}
		}
	}
	if links < 20 {
		t.Errorf("found only %d relative links; is the link pattern still right?", links)
	}
}

// docRequests is the --requests every documented run and optimize command
// runs with here: enough to exercise every code path a command takes, small
// enough that all of them run in seconds.
const docRequests = "2000"

// docSkips are the documented commands this test does not run, each with
// why. Any other command in a sh block must be one it can run, so a new
// command in the docs is either checked or listed here with its reason.
var docSkips = map[string]string{
	"go test ./...":                                              "the test suite itself (.ci/run runs it; TestSetUpCommands checks it is the README's)",
	"go install ./cmd/hedgesim":                                  "installs into the user's GOBIN",
	"curl -s localhost:9090/metrics > metrics.txt":               "fetches a Prometheus /metrics page; testdata/docs/metrics.txt stands in for it",
	`args="--requests 200000 shared-rate-limit" stage=1 resume=`: "a shell loop over stages (TestMergeIsOptimize runs the same stages on shared-rate-limit, TestMergeRemovesStaleState the loop's stop test)",
	"while :; do": "part of the staged shell loop",
	"parallel hedgesim optimize $args --shard {}/3 $resume --out parts/$stage-{}.json ::: 0 1 2 || break": "part of the staged shell loop",
	"hedgesim merge parts/$stage-*.json --out report --state parts/state$stage.json || break":             "part of the staged shell loop",
	"[ -f parts/state$stage.json ] || break":                                                              "part of the staged shell loop",
	`resume="--resume parts/state$stage.json" stage=$((stage + 1))`:                                       "part of the staged shell loop",
	"done": "part of the staged shell loop",
}

// docCommand is one command of a sh block: continuation lines joined, the
// trailing comment removed.
type docCommand struct {
	doc  string
	line int
	text string
}

// docCommands lists the commands of a Markdown file's sh blocks.
func docCommands(doc, src string) []docCommand {
	var out []docCommand
	var cur *docCommand
	for _, l := range mdLines(src) {
		if !l.inCode || l.lang != "sh" {
			continue
		}
		text := strings.TrimSpace(l.text)
		if cur != nil {
			cur.text += " " + text
		} else {
			out = append(out, docCommand{doc: doc, line: l.n, text: text})
			cur = &out[len(out)-1]
		}
		if strings.HasSuffix(cur.text, `\`) {
			cur.text = strings.TrimSpace(strings.TrimSuffix(cur.text, `\`))
			continue
		}
		cur.text = stripComment(cur.text)
		cur = nil
	}
	return out
}

// stripComment removes a shell comment: a # after a space, outside quotes.
func stripComment(s string) string {
	quote := rune(0)
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && i > 0 && s[i-1] == ' ':
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

// shellWords splits a command into words as sh does for the plain commands
// the docs show: blanks separate words, quotes group them.
func shellWords(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				b.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, nil
}

// docInputs are the repository's paths the documented commands read. Each
// doc file's commands run in a fresh directory holding a copy of them, so a
// command names them by the same relative path a reader in the checkout
// would, and whatever a command writes (report/, parts/, …) lands in that
// directory: the test never writes into the checkout, whatever a reader has
// left there. A documented command that reads another of the repository's
// paths fails with "no such file" until that path is added here.
var docInputs = []string{"scenarios"}

// copyDocInputs copies docInputs from the repository at root into dir.
func copyDocInputs(t *testing.T, root, dir string) {
	t.Helper()
	for _, p := range docInputs {
		if err := os.CopyFS(filepath.Join(dir, p), os.DirFS(filepath.Join(root, p))); err != nil {
			t.Fatal(err)
		}
	}
}

// docArgs turns a documented hedgesim command's words into the arguments
// run here, in the working directory: globs expanded there, --requests set
// to docRequests for run and optimize. Paths stay as written, relative to
// the working directory (see docInputs). It returns the file standard
// output is redirected to, if any.
func docArgs(t *testing.T, words []string) (args []string, stdoutFile string) {
	t.Helper()
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == ">" && i+1 < len(words):
			stdoutFile = words[i+1]
			i++
			continue
		case strings.Contains(w, "*"):
			m, _ := filepath.Glob(w)
			if len(m) == 0 {
				t.Fatalf("%s matches no file", w)
			}
			args = append(args, m...)
			continue
		}
		args = append(args, w)
	}
	if len(args) == 0 || (args[0] != "run" && args[0] != "optimize") {
		return args, stdoutFile
	}
	for i := 1; i < len(args); i++ {
		switch {
		case args[i] == "--requests" && i+1 < len(args):
			args[i+1] = docRequests
			return args, stdoutFile
		case strings.HasPrefix(args[i], "--requests="):
			args[i] = "--requests=" + docRequests
			return args, stdoutFile
		}
	}
	return append([]string{args[0], "--requests", docRequests}, args[1:]...), stdoutFile
}

// outsideDir returns the first of args that is an absolute path or climbs
// out of the working directory, or "".
func outsideDir(args []string) string {
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		if filepath.IsAbs(a) || a == ".." || strings.HasPrefix(filepath.Clean(a), "../") {
			return a
		}
	}
	return ""
}

// TestDocCommands runs every hedgesim command shown in the documentation's
// sh blocks, in order, in a fresh directory per file (so a file's commands
// see each other's outputs, as a reader's would) that holds a copy of
// docInputs and the files testdata/docs provides in place of the reader's
// own (my-log.csv, metrics.txt), with small --requests:
// each must exit 0. Commands that cannot run here are in docSkips with the
// reason. Under -short it runs only the README's.
func TestDocCommands(t *testing.T) {
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, doc := range docPaths(t) {
		if testing.Short() && doc != "README.md" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		cmds := docCommands(doc, string(src))
		if len(cmds) == 0 {
			continue
		}
		t.Run(strings.ReplaceAll(doc, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS("testdata/docs")); err != nil {
				t.Fatal(err)
			}
			copyDocInputs(t, root, dir)
			t.Chdir(dir)
			for _, c := range cmds {
				if _, ok := docSkips[c.text]; ok {
					continue
				}
				words, err := shellWords(c.text)
				if err != nil {
					t.Fatalf("%s:%d: %v", c.doc, c.line, err)
				}
				var runs [][]string
				switch {
				case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/hedgesim":
					runs = [][]string{words[3:]}
				case words[0] == "hedgesim":
					runs = [][]string{words[1:]}
				case words[0] == "parallel" && len(words) > 1 && words[1] == "hedgesim":
					// GNU parallel's plain form: the command once per value after :::, {} replaced by it.
					cmd, values, ok := strings.Cut(strings.Join(words[2:], "\x00"), "\x00:::\x00")
					if !ok {
						t.Fatalf("%s:%d: parallel without ::: values", c.doc, c.line)
					}
					for _, v := range strings.Split(values, "\x00") {
						runs = append(runs, strings.Split(strings.ReplaceAll(cmd, "{}", v), "\x00"))
					}
				case words[0] == "mkdir" && len(words) == 3 && words[1] == "-p":
					if err := os.MkdirAll(words[2], 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				default:
					t.Errorf("%s:%d: %q: not a command this test can run; add it to docSkips with the reason", c.doc, c.line, c.text)
					continue
				}
				for _, w := range runs {
					args, outFile := docArgs(t, w)
					if p := outsideDir(append(args, outFile)); p != "" {
						t.Errorf("%s:%d: %s: names %s, outside the directory it runs in; a documented command must read and write only there (see docInputs)", c.doc, c.line, c.text, p)
						continue
					}
					code, stdout, stderr := hedgesim(t, args...)
					if code != 0 {
						t.Errorf("%s:%d: %s\n(run as hedgesim %s): exit %d\n%s", c.doc, c.line, c.text, strings.Join(args, " "), code, stderr)
						continue
					}
					if outFile != "" {
						if err := os.WriteFile(outFile, []byte(stdout), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					ran++
				}
			}
		})
	}
	if ran < 3 {
		t.Errorf("ran only %d documented commands; is the sh block pattern still right?", ran)
	}
}

// TestSetUpCommands: the README's first sh block is the two set-up
// commands — run the default scenario, pass the tests — and CI runs the
// second exactly as written.
func TestSetUpCommands(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := docCommands("README.md", string(src))
	if len(cmds) < 2 || cmds[0].text != "go run ./cmd/hedgesim run" || cmds[1].text != "go test ./..." {
		t.Fatalf("README's first commands are %v; want go run ./cmd/hedgesim run, then go test ./...", cmds[:min(2, len(cmds))])
	}
	ci, err := os.ReadFile(filepath.Join(repoRoot, ".ci/run"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(string(ci), "\n") {
		found = found || strings.TrimSpace(line) == cmds[1].text
	}
	if !found {
		t.Errorf(".ci/run does not run the README's test command %q", cmds[1].text)
	}
}

// TestOutsideDir: the guard TestDocCommands puts on each documented
// command's arguments flags absolute paths and paths that climb out of the
// working directory, in a flag's value too, and nothing else.
func TestOutsideDir(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"optimize", "--out", "report/", "scenarios/guard-check.toml"}, ""},
		{[]string{"merge", "parts/a.json", "--state=parts/state1.json"}, ""},
		{[]string{"run", "--out", "/home/me/report"}, "/home/me/report"},
		{[]string{"run", "--out=/tmp/r"}, "/tmp/r"},
		{[]string{"run", "../../report"}, "../../report"},
		{[]string{"run", "a/../../b"}, "a/../../b"},
		{[]string{"run", ".."}, ".."},
		{[]string{"run", "..hidden/x"}, ""},
	} {
		if got := outsideDir(tc.args); got != tc.want {
			t.Errorf("outsideDir(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
