// Two finishing touches, done once the page (and its formulas) is drawn, and again when the
// window changes size.
(function () {
  const SMALLEST = 10.5; // px: a printed table's font is never made smaller than this
  const LABEL = "Printed table, wider than the page: it scrolls sideways";

  // A printed table (its lines kept whole, tools/publish/book/extension.py) wider than its column gets a
  // smaller font, down to SMALLEST; one still too wide scrolls in its own box, which is then a
  // labelled region the keyboard can reach.
  function fitTables() {
    document.querySelectorAll("div.book-printed-table pre").forEach(function (pre) {
      pre.style.fontSize = "";
      let size = parseFloat(getComputedStyle(pre).fontSize);
      while (pre.scrollWidth > pre.clientWidth + 1 && size > SMALLEST) {
        size = Math.max(SMALLEST, size - 0.5);
        pre.style.fontSize = size + "px";
      }
      const scrolls = pre.scrollWidth > pre.clientWidth + 1;
      pre.classList.toggle("book-scrolls", scrolls);
      if (scrolls) {
        pre.setAttribute("role", "region");
        pre.setAttribute("aria-label", LABEL);
        pre.tabIndex = 0;
      } else if (pre.getAttribute("aria-label") === LABEL) {
        pre.removeAttribute("role");
        pre.removeAttribute("aria-label");
      }
    });
  }

  // MathJax 2 breaks no formula inside a line of text, nor an aligned derivation: a displayed
  // formula wider than its column is drawn smaller, down to 70 %; one still too wide, or an
  // inline one wider than its line (on a phone), scrolls sideways in its own box (MathJax makes
  // each formula reachable by the keyboard) instead of being cut off.
  function fitFormulas() {
    document.querySelectorAll("div.math .MJXc-display").forEach(function (display) {
      display.style.fontSize = "";
      for (let scale = 95; display.scrollWidth > display.clientWidth + 2 && scale >= 70;
           scale -= 5) {
        display.style.fontSize = scale + "%";
      }
    });
    document.querySelectorAll("span.math > .MathJax_CHTML").forEach(function (math) {
      math.classList.remove("book-wide-math");
      math.classList.toggle("book-wide-math", math.scrollWidth > math.parentElement.clientWidth + 1);
    });
  }

  // The page says where fitting is (for the browser tests, which wait for it instead of a fixed
  // pause that a busy machine outlasts): data-book-fit "pending" or "done", and data-book-fits,
  // how many fits have ended.
  const root = document.documentElement;
  function fitted() {
    root.dataset.bookFits = String(Number(root.dataset.bookFits || 0) + 1);
    root.dataset.bookFit = "done";
  }

  let pending = null;
  function refit() {
    clearTimeout(pending);
    root.dataset.bookFit = "pending";
    pending = setTimeout(function () {
      fitTables();
      if (window.MathJax && MathJax.Hub) MathJax.Hub.Queue(fitFormulas, fitted);
      else fitted();
    }, 100);
  }

  document.addEventListener("DOMContentLoaded", fitTables);
  window.addEventListener("load", function () {
    fitTables();
    window.addEventListener("resize", refit);
    refit();
    if (document.fonts) document.fonts.ready.then(refit); // MathJax's fonts change its widths
    if (!window.MathJax || !MathJax.Hub) return;
    MathJax.Hub.Register.StartupHook("End", function () {
      MathJax.Hub.Queue(fitFormulas);
      MathJax.Hub.Queue(refit); // once more, after the fonts the formulas asked for
    });
  });
})();
