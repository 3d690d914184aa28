package leaderboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// layoutCheck runs inside the page after its own script: it measures what
// a reader would see and writes the result into <pre id="layout-check">.
// Every plot set is shown first so hidden ones are measured too.
const layoutCheck = `<script>
(function () {
  var out = {width: window.innerWidth, ready: document.body.getAttribute("data-ready")};
  var de = document.documentElement;
  out.pageOverflow = Math.max(de.scrollWidth, document.body.scrollWidth) - de.clientWidth;
  var t = document.getElementById("board");
  out.tableOverflow = t.scrollWidth - t.parentElement.clientWidth;
  out.cellsOutside = [];
  out.cellsSpill = [];
  t.querySelectorAll("td, th").forEach(function (c) {
    var r = c.getBoundingClientRect();
    if (r.width === 0) return;
    if (r.right > de.clientWidth + 0.5 || r.left < -0.5) out.cellsOutside.push(c.textContent.trim().slice(0, 40));
    if (c.scrollWidth > c.clientWidth + 1) out.cellsSpill.push(c.textContent.trim().slice(0, 40) + " (" + c.scrollWidth + " px in " + c.clientWidth + ")");
  });
  // A header word or a number split over two lines ("humanev" / "al", "241." / "0"): each word's
  // glyphs must lie on one line box.
  out.brokenWords = [];
  t.querySelectorAll("thead th, td.eff, td.avg b, td.score .v").forEach(function (th) {
    var w = document.createTreeWalker(th, NodeFilter.SHOW_TEXT), n;
    while ((n = w.nextNode())) {
      var re = /\S+/g, m;
      while ((m = re.exec(n.data))) {
        var rg = document.createRange();
        rg.setStart(n, m.index); rg.setEnd(n, m.index + m[0].length);
        var tops = {};
        Array.prototype.forEach.call(rg.getClientRects(), function (r) { if (r.width > 0) tops[Math.round(r.top)] = 1; });
        if (Object.keys(tops).length > 1) out.brokenWords.push(m[0]);
      }
    }
  });
  // The score bar: a track inside the cell, clear of the row's border.
  out.barsOnBorder = [];
  t.querySelectorAll("td.score .bar").forEach(function (b) {
    var r = b.getBoundingClientRect(), c = b.closest("td").getBoundingClientRect();
    if (r.width === 0) return;
    if (c.bottom - r.bottom < 2 || r.width < c.width / 2) out.barsOnBorder.push(b.closest("td").getAttribute("data-label"));
  });
  out.bars = t.querySelectorAll("td.score .bar").length;
  out.cards = getComputedStyle(t.tBodies[0].rows[0]).display;
  document.querySelectorAll(".figset").forEach(function (f) { f.hidden = false; });
  out.plots = 0; out.labels = 0; out.overlaps = []; out.outside = [];
  document.querySelectorAll("svg.plot").forEach(function (svg) {
    if (svg.getBoundingClientRect().width === 0) return;
    out.plots++;
    var fr = svg.querySelector("rect.frame").getBBox();
    var boxes = [];
    svg.querySelectorAll("text.pl").forEach(function (tx) {
      var b = tx.getBBox();
      boxes.push({x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height, t: tx.textContent, label: true});
      out.labels++;
      if (b.x < fr.x - 0.5 || b.y < fr.y - 0.5 || b.x + b.width > fr.x + fr.width + 0.5 || b.y + b.height > fr.y + fr.height + 0.5)
        out.outside.push(tx.textContent);
    });
    svg.querySelectorAll("circle").forEach(function (c) {
      var b = c.getBBox();
      boxes.push({x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height, t: "dot " + c.textContent, label: false});
    });
    for (var i = 0; i < boxes.length; i++) for (var j = i + 1; j < boxes.length; j++) {
      var a = boxes[i], b = boxes[j];
      if (!a.label && !b.label) continue;
      var ox = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0), oy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      if (ox > 0.5 && oy > 0.5) out.overlaps.push(a.t + " / " + b.t);
    }
  });
  parent.postMessage(JSON.stringify(out), "*");
})();
</script>`

// frame is the page Chromium loads: the board in an iframe of the width
// under test (headless windows are at least 500 px wide, a phone is
// narrower), and the layout check's report written into the frame page.
const frame = `<!DOCTYPE html><html><body style="margin:0">
<iframe style="width:%dpx;height:2000px;border:0;display:block" srcdoc="%s"></iframe>
<pre id="layout-check"></pre>
<script>window.addEventListener("message", function (e) { document.getElementById("layout-check").textContent = e.data; });</script>
</body></html>`

// layout is what layoutCheck reports.
type layout struct {
	Width         int      `json:"width"`
	Ready         string   `json:"ready"`
	PageOverflow  float64  `json:"pageOverflow"`
	TableOverflow float64  `json:"tableOverflow"`
	CellsOutside  []string `json:"cellsOutside"`
	CellsSpill    []string `json:"cellsSpill"`
	BrokenWords   []string `json:"brokenWords"`
	BarsOnBorder  []string `json:"barsOnBorder"`
	Bars          int      `json:"bars"`
	Cards         string   `json:"cards"`
	Plots         int      `json:"plots"`
	Labels        int      `json:"labels"`
	Overlaps      []string `json:"overlaps"`
	Outside       []string `json:"outside"`
}

// chromium returns Debian's chromium, or skips (fails under CI).
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("renders in Chromium; not in -short")
	}
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; scripts/setup.sh installs it")
		}
		t.Skip("chromium not installed")
	}
	return bin
}

// renderLayout loads page in headless Chromium with a window width wide
// and returns the page's layout as layoutCheck measured it.
func renderLayout(t *testing.T, bin string, page []byte, width int) layout {
	t.Helper()
	var l layout
	renderCheck(t, bin, page, width, layoutCheck, &l)
	return l
}

// renderCheck loads page with the script check, which posts a JSON report
// to its parent, in headless Chromium at width, and decodes the report
// into report.
func renderCheck(t *testing.T, bin string, page []byte, width int, check string, report any) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "board.html")
	withCheck := bytes.Replace(page, []byte("</body>"), []byte(check+"</body>"), 1)
	wrapped := fmt.Sprintf(frame, width, html.EscapeString(string(withCheck)))
	if err := os.WriteFile(file, []byte(wrapped), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), fmt.Sprintf("--window-size=%d,2100", max(width, 500)+20),
		"--virtual-time-budget=3000", "--dump-dom", "file://"+file)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, errb.String())
		}
	case <-time.After(3 * time.Minute): // a hang guard only
		cmd.Process.Kill()
		t.Fatal("chromium did not finish in 3 minutes")
	}
	dom := out.String()
	i := strings.Index(dom, `<pre id="layout-check">`)
	if i < 0 || strings.Contains(dom, `<pre id="layout-check"></pre>`) {
		t.Fatalf("the layout check did not run (width %d):\n%s", width, errb.String())
	}
	js := dom[i+len(`<pre id="layout-check">`):]
	js = js[:strings.Index(js, "</pre>")]
	js = html.UnescapeString(js)
	if err := json.Unmarshal([]byte(js), report); err != nil {
		t.Fatalf("layout check output %q: %v", js, err)
	}
}

// TestBoardInChromium renders a realistic pocket11 board at a laptop's and
// a phone's width and checks what a reader would see: the page's script
// ran, nothing is wider than the window (no column hidden behind a
// scrollbar, no cell spilling), the phone gets cards, and no plot label
// overlaps another label or a dot or leaves the plot.
func TestBoardInChromium(t *testing.T) {
	bin := chromium(t)
	page, err := realisticBoard(t).HTML()
	if err != nil {
		t.Fatal(err)
	}
	// 24 tasks cannot be a table at 1280 px: cards, in columns.
	widePage, err := manyTaskBoard(t).HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		page  []byte
		width int
		cards bool
		plots int
	}{
		// 12 score choices × 3 plots (speed, memory, energy).
		{"1280", page, 1280, false, 36},
		{"390", page, 390, true, 36},
		{"24-tasks-1280", widePage, 1280, true, 25 * 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := renderLayout(t, bin, c.page, c.width)
			if l.Width != c.width {
				t.Fatalf("window is %d px wide, want %d", l.Width, c.width)
			}
			if l.Ready != "1" {
				t.Error("the page's script did not run to completion")
			}
			if l.PageOverflow > 0 || l.TableOverflow > 0 {
				t.Errorf("horizontal overflow: page %v px, table %v px", l.PageOverflow, l.TableOverflow)
			}
			if len(l.CellsOutside) > 0 || len(l.CellsSpill) > 0 {
				t.Errorf("cells outside the window %q, cells whose content spills %q", l.CellsOutside, l.CellsSpill)
			}
			if len(l.BrokenWords) > 0 {
				t.Errorf("words or numbers broken over two lines: %q", l.BrokenWords)
			}
			if !c.cards && (l.Bars == 0 || len(l.BarsOnBorder) > 0) {
				t.Errorf("%d score bars; on the row border or shorter than half the cell: %q", l.Bars, l.BarsOnBorder)
			}
			if (l.Cards == "block") != c.cards {
				t.Errorf("rows display as %q at %d px", l.Cards, c.width)
			}
			if l.Plots != c.plots || l.Labels == 0 {
				t.Errorf("%d plots with %d labels visible", l.Plots, l.Labels)
			}
			if len(l.Overlaps) > 0 || len(l.Outside) > 0 {
				t.Errorf("plot labels overlap: %q; outside the plot: %q", l.Overlaps, l.Outside)
			}
		})
	}
}

// decisionCheck opens a decision drill-down and measures its plot: the
// curve drawn inside the plot, the operating point shown, and the greyed
// colour of a score at chance.
const decisionCheck = `<script>
(function () {
  var svg = document.querySelector("svg.rc");
  for (var p = svg; p; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
  var r = svg.getBoundingClientRect(), c = svg.querySelector("polyline.curve").getBBox();
  var op = svg.querySelector("circle.op").getBoundingClientRect();
  var grey = getComputedStyle(document.querySelector("#board td.score.chance .v")).color;
  var plain = getComputedStyle(document.querySelector("#board td.score:not(.chance) .v")).color;
  parent.postMessage(JSON.stringify({width: r.width, height: r.height, curveWidth: c.width, opWidth: op.width, grey: grey, plain: plain}), "*");
})();
</script>`

// TestDecisionCurveInChromium renders a decision task's drill-down and a
// score at chance as a reader sees them.
func TestDecisionCurveInChromium(t *testing.T) {
	bin := chromium(t)
	b, err := NewBoard(loadAll(t, []string{decisionRun(t)}), BoardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := b.HTML()
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Width, Height, CurveWidth, OpWidth float64
		Grey, Plain                        string
	}
	renderCheck(t, bin, page, 1280, decisionCheck, &got)
	if got.Width < 300 || got.Height < 200 || got.CurveWidth < 100 || got.OpWidth == 0 {
		t.Errorf("risk–coverage plot not drawn: %+v", got)
	}
	if got.Grey == got.Plain || got.Grey == "" {
		t.Errorf("a score at chance is not greyed: %q vs %q", got.Grey, got.Plain)
	}
}
