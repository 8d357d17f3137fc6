// The stored explorer's heatmap is an <img> drawn by the widget renderer, without alt text: it
// takes the "Figure (live):" description printed right under its cell, as every figure does.
(function () {
  function describe(img) {
    const cell = img.closest("div.cell");
    const next = cell && cell.nextElementSibling;
    const text = next ? next.textContent.trim() : "";
    if (/^Figure/.test(text)) img.alt = text.replace(/^Figure[^:]*:\s*/, "");
  }
  function describeAll() {
    document.querySelectorAll("div.cell_output img:not([alt])").forEach(describe);
  }
  document.addEventListener("DOMContentLoaded", function () {
    describeAll();
    new MutationObserver(describeAll).observe(document.body, { childList: true, subtree: true });
  });
})();
