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

  // A figure's text at a phone's width: a figure drawn narrower than its stored width shrinks its
  // text with it (the series' 18 pt at 100 dpi is 25 px stored, 6.5 px on a 390 px phone). A
  // figure is never drawn so small that its smallest text (window.BOOK_FIGURE_TEXT_PX, from the
  // series' style: tools/publish/book/extension.py) falls under READABLE px: one that would be is
  // drawn at that size and scrolls sideways in its own box, labelled and reached by the keyboard.
  const READABLE = 12;
  const FIGURE_LABEL = "Figure, wider than the page: it scrolls sideways";
  function fitFigures() {
    const stored = window.BOOK_FIGURE_TEXT_PX || 25;
    document.querySelectorAll("div.cell_output img").forEach(function (img) {
      const box = img.closest("div.cell_output");
      img.style.width = "";
      img.style.maxWidth = "";
      const least = Math.ceil(img.naturalWidth * READABLE / stored);
      const scrolls = img.naturalWidth > 0 && img.clientWidth < least;
      if (scrolls) {
        img.style.width = least + "px";
        img.style.maxWidth = "none";
      }
      box.classList.toggle("book-wide-figure", scrolls);
      if (scrolls) {
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", FIGURE_LABEL);
        box.tabIndex = 0;
      } else if (box.getAttribute("aria-label") === FIGURE_LABEL) {
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
        box.removeAttribute("tabindex");
      }
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
      fitFigures();
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
