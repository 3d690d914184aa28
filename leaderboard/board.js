(function () {
  "use strict";
  var table = document.getElementById("board");
  var body = table.tBodies[0];
  var heads = table.tHead.querySelectorAll("th.sortable");

  // Sorting: numbers by data-v; a cell without a value always sorts last.
  function key(row, col, type) {
    var td = row.cells[col];
    var v = td ? td.getAttribute("data-v") : null;
    if (v === null || v === "") return null;
    return type === "num" ? parseFloat(v) : v.toLowerCase();
  }
  function sortBy(col, type, dir) {
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, col, type), y = key(b, col, type);
      if (x === null || y === null) return (x === null) - (y === null);
      return (x < y ? -1 : x > y ? 1 : 0) * (dir === "asc" ? 1 : -1);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(heads, function (h) {
      h.classList.remove("sorted-asc", "sorted-desc");
      if (+h.getAttribute("data-col") === col) h.classList.add("sorted-" + dir);
    });
  }
  Array.prototype.forEach.call(heads, function (th) {
    th.addEventListener("click", function () {
      var col = +th.getAttribute("data-col");
      var dir = th.getAttribute("data-dir");
      if (th.classList.contains("sorted-" + dir)) dir = dir === "asc" ? "desc" : "asc";
      sortBy(col, th.getAttribute("data-type"), dir);
    });
  });
  var sortSel = document.getElementById("sortby");
  sortSel.addEventListener("change", function () {
    var p = sortSel.value.split(":");
    sortBy(+p[0], p[1], p[2]);
  });

  // Plots: one set of figures per score.
  var plotSel = document.getElementById("plotmetric");
  plotSel.addEventListener("change", function () {
    Array.prototype.forEach.call(document.querySelectorAll(".figset"), function (f) {
      f.hidden = f.getAttribute("data-metric") !== plotSel.value;
    });
  });

  // Drill-down: a link to a run or one of its tasks opens the details
  // that hold it.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) return;
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") p.open = true;
    }
    el.scrollIntoView({block: "start"});
  }
  window.addEventListener("hashchange", reveal);
  reveal();

  document.body.setAttribute("data-ready", "1");
})();
