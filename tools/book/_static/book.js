// Two finishing touches, each done once the page (and its widgets or formulas) is drawn.
(function () {
  // The stored explorer's heatmap is an <img> drawn by the widget renderer, without alt text: it
  // takes the "Figure (live):" description printed right under its cell, as every figure does.
  function describe(img) {
    const cell = img.closest("div.cell");
    const next = cell && cell.nextElementSibling;
    const text = next ? next.textContent.trim() : "";
    if (/^Figure/.test(text)) img.alt = text.replace(/^Figure[^:]*:\s*/, "");
  }
  function describeAll() {
    document.querySelectorAll("div.cell_output img:not([alt])").forEach(describe);
  }

  // MathJax 2 breaks no formula inside a line of text: one wider than its line (on a phone)
  // scrolls sideways in its own box instead of running off the screen.
  function fitFormulas() {
    document.querySelectorAll("span.math > .MathJax_CHTML").forEach(function (math) {
      const line = math.closest("p, li, td, dd") || math.parentElement;
      math.classList.toggle("book-wide-math", math.scrollWidth > line.clientWidth);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    describeAll();
    new MutationObserver(describeAll).observe(document.body, { childList: true, subtree: true });
  });
  window.addEventListener("load", function () {
    if (!window.MathJax || !MathJax.Hub) return;
    MathJax.Hub.Register.StartupHook("End", function () { MathJax.Hub.Queue(fitFormulas); });
    window.addEventListener("resize", fitFormulas);
  });
})();
